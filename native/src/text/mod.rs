//! blkparse default text and tracefs `blk` tracer text (classic and non-classic) -> events.
//!
//! Both print the same action / RWBS / payload after different prefixes:
//! - blkparse: `  8,0  3  1  0.000000000  697  G  W 223490 + 8 [kjournald]` (dev, cpu, seq, time, pid), its
//!   per-CPU and Total summary at the end (into trace.summary, thousands separators removed);
//! - tracefs classic: the same without the sequence number;
//! - tracefs non-classic: `fio-10145 [001] d..1. 586.694868: 7,0 Q RM 2128 + 8 [fio]` (task, pid, cpu,
//!   flags, time, dev, optional cgroup); `CPU:1 [LOST 42 EVENTS]` counts go to trace.lost_events.
//! Lines are split on blanks, not fixed columns (sequence numbers past 10^8 overflow blkparse's columns).
//! Common lines take the fast path (fast.rs), all others the regular expressions (general.rs); lines that
//! are neither an event nor known furniture are counted, and their first line numbers reported.

mod fast;
mod general;
mod summary;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::fx::FxMap;
use crate::input::{self, Progress};
use crate::report::{Fail, Report};
use crate::sink::Sink;

#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layout {
    #[default]
    Blkparse,
    Classic,
    NonClassic,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Blkparse => "blkparse",
            Layout::Classic => "classic",
            Layout::NonClassic => "nonclassic",
        }
    }
}

/// One event line, parsed.
#[derive(Default)]
pub struct Line<'a> {
    pub maj: u32,
    pub min: u32,
    pub cpu: u32,
    pub seq: Option<i64>,
    pub pid: u32,
    pub abs_ns: i64,
    pub act: &'a str,
    pub rwbs: &'a str,
    pub layout: Layout,
    pub task: Option<&'a str>,
    pub rest: &'a str,
    pub sector: Option<i64>,
    pub nsectors: Option<i64>,
    pub error: Option<i32>,
    pub bracket: Option<&'a str>,
    pub remap: Option<(u32, u32, Option<i64>)>,
    pub split: Option<i64>,
    pub unplug: Option<i64>,
    pub pc_bytes: Option<i64>,
    pub cdb: Option<&'a str>,
    pub message: Option<&'a str>,
    pub payload_ok: bool,
}

impl<'a> Line<'a> {
    /// C and R print the error in brackets, the others the command name.
    fn set_bracket(&mut self, br: Option<&'a str>) {
        let err_act = self.act == "C" || self.act == "R";
        let br_int = br.and_then(|b| b.parse::<i32>().ok());
        self.error = if err_act { br_int } else { None };
        self.bracket = if err_act && br_int.is_some() { None } else { br };
    }
}

/// Long action names (tracefs `verbose` option) -> the letters blkparse prints.
fn long_action(a: &str) -> &str {
    match a {
        "queue" => "Q",
        "backmerge" => "M",
        "frontmerge" => "F",
        "getrq" => "G",
        "sleeprq" => "S",
        "requeue" => "R",
        "issue" => "D",
        "complete" => "C",
        "plug" => "P",
        "unplug_io" => "U",
        "unplug_timer" => "UT",
        "insert" => "I",
        "split" => "X",
        "bounce" => "B",
        "remap" => "A",
        "message" => "m",
        _ => a,
    }
}

fn known_action(a: &str) -> bool {
    matches!(a, "Q" | "M" | "F" | "G" | "S" | "R" | "D" | "C" | "P" | "U" | "UT" | "I" | "X" | "B" | "A" | "m" | "ZP" | "ZU" | "N")
}
const MAX_LISTED: usize = 5;
const EXAMPLES: &str =
    "'7,0 1 12.345678901 1234 Q W 2048 + 8 [fio]' or 'fio-1234 [001] .... 12.345678: 7,0 Q W 2048 + 8 [fio]'";
const BLOCK: usize = 8 << 20;

/// Test knobs: BLKSCOPE_TEXT_BLOCK (bytes per read, to cut lines at block edges) and BLKSCOPE_TEXT_GENERAL
/// (every line through the regular expressions, to check the fast path against them).
fn knobs() -> (usize, bool) {
    let block = std::env::var("BLKSCOPE_TEXT_BLOCK").ok().and_then(|v| v.parse().ok()).unwrap_or(BLOCK);
    (block.max(2), std::env::var_os("BLKSCOPE_TEXT_GENERAL").is_some())
}

/// Interned strings keyed by their text (process names and RWBS repeat by the million); the last one
/// is checked first (runs of the same process).
#[derive(Default)]
struct Keys {
    map: FxMap<Box<str>, u32>,
    last: Option<u32>,
    short: Vec<(u64, u32)>,
    last_short: (u64, u32), // (0, _) never matches: a packed word has its length bits set
}

impl Keys {
    #[inline]
    fn get(&mut self, s: &str, dict: &mut crate::events::Dict) -> u32 {
        // short strings (actions, RWBS, most process names): packed into a word, the last one checked
        // first, then a short list
        if s.len() <= 7 {
            // built byte by byte: a variable-length copy into a word stalls the load that follows
            let w = s.bytes().rev().fold(0u64, |w, c| (w << 8) | c as u64) | ((s.len() as u64 + 1) << 59);
            if self.last_short.0 == w {
                return self.last_short.1;
            }
            if let Some(&(_, k)) = self.short.iter().find(|(x, _)| *x == w) {
                self.last_short = (w, k);
                return k;
            }
            if self.short.len() < 64 {
                let k = dict.intern(s);
                self.short.push((w, k));
                self.last_short = (w, k);
                return k;
            }
        }
        if let Some(k) = self.last {
            if dict.values[k as usize] == s {
                return k;
            }
        }
        if let Some(&k) = self.map.get(s) {
            self.last = Some(k);
            return k;
        }
        let k = dict.intern(s);
        self.map.insert(s.into(), k);
        k
    }
}

struct State {
    blkparse: bool,
    origin: Option<i64>,
    before_origin: i64,
    cpus: BTreeSet<u32>,
    last_cpu: Option<u32>,
    lost: BTreeMap<u32, i64>,
    layout_bits: u8, // bit per Layout seen
    unknown_act: BTreeMap<String, i64>,
    procs: Keys,
    rwbs: Keys,
    acts: Keys,
    // the fast path's own key caches (same dictionaries)
    act_keys: [u32; 256],
    rwbs_words: fast::Words,
    proc_words: fast::Words,
}

impl State {
    /// Bookkeeping of every event: CPUs and layouts seen.
    #[inline(always)]
    fn note(&mut self, cpu: u32, layout: Layout) {
        if self.last_cpu != Some(cpu) {
            self.cpus.insert(cpu);
            self.last_cpu = Some(cpu);
        }
        self.layout_bits |= 1 << layout as u8;
    }
    /// Time from the first event (which sets the origin); earlier ones are counted.
    #[inline(always)]
    fn time_ns(&mut self, abs_ns: i64) -> i64 {
        let origin = *self.origin.get_or_insert(abs_ns);
        let t = abs_ns.wrapping_sub(origin);
        self.before_origin += (t < 0) as i64;
        t
    }
}

pub fn read_blkparse(inputs: &[PathBuf], sink: &mut Sink, rep: &mut Report, progress: bool) -> Result<(), Fail> {
    read(inputs, sink, rep, progress, true)
}

pub fn read_ftrace(inputs: &[PathBuf], sink: &mut Sink, rep: &mut Report, progress: bool) -> Result<(), Fail> {
    read(inputs, sink, rep, progress, false)
}

fn read(inputs: &[PathBuf], sink: &mut Sink, rep: &mut Report, progress: bool, blkparse: bool) -> Result<(), Fail> {
    let rx = general::Rx::new();
    let mut st = State {
        blkparse,
        origin: crate::part::get().origin,
        before_origin: 0,
        cpus: BTreeSet::new(),
        last_cpu: None,
        lost: BTreeMap::new(),
        layout_bits: 0,
        unknown_act: BTreeMap::new(),
        procs: Keys::default(),
        rwbs: Keys::default(),
        acts: Keys::default(),
        act_keys: [u32::MAX; 256],
        rwbs_words: fast::Words::default(),
        proc_words: fast::Words::default(),
    };
    let mut summary = serde_json::Map::new();
    let what = if blkparse { "blkparse" } else { "tracefs blk" };
    for path in inputs {
        let paths = [path.as_path()];
        let mut bar = Progress::new(progress, what, input::total_size(&paths)?);
        let lines = read_file(path, &rx, &mut st, sink, rep, &mut bar)?;
        bar.finish();
        summary::parse(&lines, &mut summary);
    }
    for (a, n) in &st.unknown_act {
        rep.count_unknown(&format!("action {a}"), *n);
    }
    let t = &mut rep.trace;
    t.insert("cpus_seen".into(), json!(st.cpus));
    if blkparse {
        t.insert("sequence_numbers".into(), json!(true));
        t.insert("summary".into(), Value::Object(summary));
    } else {
        let lost: serde_json::Map<String, Value> = st.lost.iter().map(|(c, n)| (c.to_string(), json!(n))).collect();
        t.insert("lost_events".into(), Value::Object(lost));
        t.insert("sequence_numbers".into(), json!(false));
        let seen = [Layout::Blkparse, Layout::Classic, Layout::NonClassic].into_iter().filter(|&l| st.layout_bits & (1 << l as u8) != 0);
        t.insert("layouts".into(), json!(seen.map(|l| l.name()).collect::<Vec<_>>()));
    }
    t.insert("time_origin_s".into(), st.origin.map_or(Value::Null, |o| json!(o as f64 / 1e9)));
    t.insert("time_origin_ns".into(), json!(st.origin));
    if !blkparse && !st.lost.is_empty() {
        let total: i64 = st.lost.values().sum();
        rep.warn(format!("tracefs reported {total} lost events (buffer overruns): see trace.lost_events"));
    }
    if st.before_origin > 0 {
        rep.warn(format!("{} events are earlier than the first event (negative time_ns)", st.before_origin));
    }
    Ok(())
}

/// Every line of one file; returns its summary lines (blkparse).
fn read_file(path: &Path, rx: &general::Rx, st: &mut State, sink: &mut Sink, rep: &mut Report, bar: &mut Progress)
    -> Result<Vec<String>, Fail> {
    let part = crate::part::get();
    let mut r = match part.range {
        Some((a, b)) => open_range(path, a, b)?,
        None => input::open(path)?,
    };
    // line numbers of a byte-range part count from its first byte
    let at = |l: u64| match part.range {
        Some((a, _)) if a > 0 => format!("line {l} counted from byte offset {a}"),
        _ => format!("line {l}"),
    };
    let (block, general_only) = knobs();
    // SLACK bytes past the data are never filled: the tokenizer may read 16 bytes at a time past a line's end
    let mut buf = vec![0u8; block + fast::SLACK];
    let (mut have, mut lineno, mut events) = (0usize, 0u64, 0u64);
    let mut read = 0u64; // bytes of the input read so far (a read error's byte offset)
    let (mut nbad, mut bad) = (0u64, Vec::<u64>::new());
    let mut summary = Vec::new();
    let mut nopay: Option<(u64, String)> = None;
    let mut nopay_n = 0i64;
    'blocks: loop {
        if buf.len() - fast::SLACK - have < block / 2 {
            buf.resize(buf.len() * 2, 0); // a line longer than the block: grow
        }
        let cap = buf.len() - fast::SLACK;
        let got = input::fill(r.as_mut(), &mut buf[have..cap], path, read)?;
        read += got as u64;
        bar.add(got as u64);
        let end = have + got;
        let eof = got < cap - have;
        // whole lines of this block; the cut last line waits for the next (at the end: it is a line)
        let upto = if eof { end } else { memchr::memrchr(b'\n', &buf[..end]).map_or(0, |p| p + 1) };
        let mut pos = 0;
        while pos < upto {
            if part.origin_only && st.origin.is_some() {
                break 'blocks;
            }
            // the common line: scanned and pushed in place
            // SAFETY: pos < upto <= cap, and SLACK readable bytes follow cap
            let sc = unsafe { fast::scan(buf.as_ptr().add(pos), upto - pos) };
            if let (Some(sc), false) = (&sc, general_only) {
                // SAFETY: the line is in the buffer (SLACK bytes after it) and ASCII
                if sc.ascii && unsafe { fast::take(buf.as_ptr().add(pos), sc, st, sink)? } {
                    pos += sc.len + 1;
                    lineno += 1;
                    events += 1;
                    continue;
                }
            }
            let stop = match sc {
                Some(sc) => pos + sc.len,
                None => memchr::memchr(b'\n', &buf[pos..upto]).map_or(upto, |p| pos + p),
            };
            let raw = &buf[pos..stop];
            pos = stop + 1;
            lineno += 1;
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let text = String::from_utf8_lossy(raw);
            match rx.parse(&text, st.blkparse) {
                Ok(ln) => {
                    events += 1;
                    if !ln.payload_ok {
                        nopay_n += 1;
                        nopay.get_or_insert_with(|| (lineno, ln.rest.to_owned()));
                    }
                    push(&ln, st, sink)?;
                }
                Err(general::Other::Lost(cpu, n)) => *st.lost.entry(cpu).or_insert(0) += n,
                Err(general::Other::Ignored) => {}
                Err(general::Other::Summary) => summary.push(text.into_owned()),
                Err(general::Other::Unparsed) => {
                    nbad += 1;
                    if bad.len() < MAX_LISTED {
                        bad.push(lineno);
                    }
                }
            }
        }
        buf.copy_within(upto..end, 0);
        have = end - upto;
        if eof {
            break;
        }
    }
    let what = if st.blkparse { "blkparse" } else { "tracefs blk" };
    if part.range.is_some() && events == 0 {
        return Ok(summary); // a part may hold no event (a short trace cut in many parts, a summary)
    }
    if lineno == 0 {
        return Err(Fail::new(path, None, format!("empty file: expected {what} output")));
    }
    if events == 0 {
        let hint = if st.blkparse { String::new() } else { format!(" (expected e.g. {EXAMPLES})") };
        return Err(Fail::new(path, bad.first().map(|&l| at(l)), format!("no {what} events{hint}")));
    }
    if nopay_n > 0 {
        let (l, rest) = nopay.unwrap();
        rep.count_unknown("unparsed payload", nopay_n);
        rep.warn(format!("{}: {}: payload not understood: {}", path.display(), at(l), py_repr(&rest)));
    }
    if nbad > 0 {
        rep.count_unknown("unparsed line", nbad as i64);
        let listed: Vec<String> = bad.iter().map(|l| l.to_string()).collect();
        let from = part.range.filter(|r| r.0 > 0).map_or(String::new(), |r| format!(" (counted from byte offset {})", r.0));
        rep.warn(format!("{}: {nbad} lines not understood (skipped), first at line(s) {}{from}", path.display(),
                         listed.join(", ")));
    }
    Ok(summary)
}

/// Bytes [a, b) of an uncompressed file; `a` must start a line (the planner cuts after a newline).
fn open_range(path: &Path, a: u64, b: u64) -> Result<Box<dyn std::io::Read + Send>, Fail> {
    use std::io::{Read, Seek, SeekFrom};
    if input::is_compressed(path)? {
        return Err(Fail::new(path, None, "a byte range of a compressed file cannot be read: decompress it first"));
    }
    let mut f = std::fs::File::open(path).map_err(|e| Fail::io(path, e))?;
    let size = f.metadata().map_err(|e| Fail::io(path, e))?.len();
    if a > b || b > size {
        return Err(Fail::offset(path, a, format!("byte range {a}:{b} is outside the file ({size} bytes)")));
    }
    if a > 0 {
        let mut c = [0u8; 1];
        f.seek(SeekFrom::Start(a - 1)).map_err(|e| Fail::io(path, e))?;
        f.read_exact(&mut c).map_err(|e| Fail::io(path, e))?;
        if c[0] != b'\n' {
            return Err(Fail::offset(path, a, "a part must start at a line start (the byte before is not a newline)"));
        }
    }
    f.seek(SeekFrom::Start(a)).map_err(|e| Fail::io(path, e))?;
    Ok(Box::new(f.take(b - a)))
}

/// Python's repr of a str, as the Python reader printed it (single quotes unless the text has one).
fn py_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::from(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

#[inline]
fn push(ln: &Line, st: &mut State, sink: &mut Sink) -> Result<(), Fail> {
    let time_ns = st.time_ns(ln.abs_ns);
    st.note(ln.cpu, ln.layout);
    if !known_action(ln.act) {
        *st.unknown_act.entry(ln.act.to_owned()).or_insert(0) += 1;
    }
    let ev = &mut sink.ev;
    let row = ev.row();
    if let Some((x, y, r)) = ln.remap {
        ev.remap_dev_major.set(row, x);
        ev.remap_dev_minor.set(row, y);
        if let Some(r) = r {
            ev.remap_sector.set(row, r);
        }
    }
    if let Some(v) = ln.split {
        ev.split_sector.set(row, v);
    }
    if let Some(v) = ln.unplug {
        ev.unplug_count.set(row, v);
    }
    if let Some(v) = ln.pc_bytes {
        ev.pc_bytes.set(row, v);
    }
    if let Some(v) = ln.cdb {
        ev.cdb.set(row, v);
    }
    if let Some(v) = ln.message {
        ev.message.set(row, v);
    }
    ev.dev_major.push(ln.maj);
    ev.dev_minor.push(ln.min);
    ev.cpu.push(ln.cpu);
    ev.seq.push_opt(ln.seq);
    ev.time_ns.push(time_ns);
    ev.pid.push(ln.pid);
    let k = st.acts.get(ln.act, &mut ev.action.dict);
    ev.action.push_key(k);
    let k = st.rwbs.get(ln.rwbs, &mut ev.rwbs.dict);
    ev.rwbs.push_key(k);
    ev.sector.push_opt(ln.sector);
    ev.nsectors.push_opt(ln.nsectors);
    ev.error.push_opt(ln.error);
    // the task of a non-classic prefix names the process; `<...>` (name not saved) falls back to the bracket
    match ln.task.or(ln.bracket) {
        Some(p) => {
            let k = st.procs.get(p, &mut ev.process.dict);
            ev.process.push_key(k);
        }
        None => ev.process.push_null(),
    }
    sink.end_row()
}
