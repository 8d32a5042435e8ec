//! blkparse's per-CPU and Total summary (`CPU0 (sda):`, ` Reads Queued: 1,154, 4,616KiB ...`,
//! `Events (sda): 2,398 entries`) -> {section: {counter: n}}, thousands separators removed.

use regex::Regex;
use serde_json::{json, Map, Value};

pub fn parse(lines: &[String], out: &mut Map<String, Value>) {
    if lines.is_empty() {
        return;
    }
    let head = Regex::new(r"^(CPU\d+|Total) \((.*)\):").unwrap();
    let events = Regex::new(r"^Events \((.*)\): ([\d,]+) entries").unwrap();
    let pair = Regex::new(r"([A-Z][A-Za-z ]*?):\s+(\d+(?:,\d{3})*)(?:,\s+(\d+(?:,\d{3})*)KiB)?").unwrap();
    let num = |s: &str| s.replace(',', "").parse::<i64>().unwrap_or(0);
    let mut section: Option<String> = None;
    for ln in lines {
        if let Some(c) = head.captures(ln) {
            let s = format!("{} ({})", &c[1], &c[2]);
            out.entry(s.clone()).or_insert_with(|| json!({}));
            section = Some(s);
            continue;
        }
        if let Some(c) = events.captures(ln) {
            let e = out.entry(format!("Total ({})", &c[1])).or_insert_with(|| json!({}));
            e["Events"] = json!(num(&c[2]));
            continue;
        }
        if let (Some(s), true) = (&section, ln.starts_with(' ')) {
            let e = out.get_mut(s).unwrap();
            for c in pair.captures_iter(ln) {
                let key = c[1].trim().to_owned();
                e[&key] = json!(num(&c[2]));
                if let Some(k) = c.get(3) {
                    e[format!("{key} KiB")] = json!(num(k.as_str()));
                }
            }
        }
    }
}
