//! Any line, by the regular expressions of the Python readers (readers/blkparse.py, ftrace.py,
//! trace_text.py: the same regex engine polars used): the slow, complete path for lines the fast path
//! (fast.rs) does not take.

use regex::Regex;

use super::Line;

pub const BLKPARSE_LINE: &str = r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<seq>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$";
const CLASSIC: &str = r"^\s*(?P<maj>\d+),(?P<min>\d+)\s+(?P<cpu>\d+)\s+(?P<s>\d+)\.(?P<f>\d+)\s+(?P<pid>\d+)\s+(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$";
const NONCLASSIC: &str = r"^\s*(?P<task>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+(?:[^\s:]+\s+)?(?P<s>\d+)\.(?P<f>\d+):\s+(?P<maj>\d+),(?P<min>\d+)\s+(?:(?P<cg>/\S*|\[[^\]]*\])\s+)?(?P<act>\S+)\s+(?P<rwbs>\S+)(?: (?P<rest>.*))?$";
const LOST: &str = r"^CPU:(?P<cpu>\d+) \[LOST (?P<n>\d+) EVENTS\]";
const IGNORED: &str = r"^(?:#|\s*$|##### CPU \d+ buffer started ####)";
const SUMMARY: &str = r"^(?:CPU\d+ \(|Total \(| [A-Z][A-Za-z ]+:|Throughput|Events \(|Skips:|Input file |#|\s*$)";
const PAYLOAD: &str = r"^(?:(?P<a>\d+)(?: \+ (?P<n>\d+))?(?: / (?P<split>\d+))?(?: <- \((?P<rmaj>\d+),(?P<rmin>\d+)\) (?P<rsec>\d+))? ?)?(?:\((?P<cdb>[^)]*)\) ?)?(?:\[(?P<br>.*)\])?(?: (?P<cnt>\d+))?$";

pub struct Rx {
    blkparse: Regex,
    classic: Regex,
    nonclassic: Regex,
    lost: Regex,
    ignored: Regex,
    summary: Regex,
    payload: Regex,
}

/// What a line that is not an event is.
pub enum Other {
    Lost(u32, i64),
    Ignored,
    Summary,
    Unparsed,
}

fn num<T: std::str::FromStr>(c: &regex::Captures, name: &str) -> Option<T> {
    c.name(name).and_then(|m| m.as_str().parse().ok())
}

/// "123" and "4567" (of 123.4567 s) -> 123456700000 ns, exactly (no float rounding).
#[inline]
pub fn ns(secs: i64, frac: &[u8]) -> i64 {
    const SCALE: [i64; 10] = [1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];
    let d = &frac[..frac.len().min(9)];
    let f = d.iter().fold(0i64, |f, &c| f * 10 + (c - b'0') as i64) * SCALE[d.len()];
    secs.wrapping_mul(1_000_000_000).wrapping_add(f)
}

impl Rx {
    pub fn new() -> Rx {
        let r = |p: &str| Regex::new(p).expect("regex");
        Rx {
            blkparse: r(BLKPARSE_LINE),
            classic: r(CLASSIC),
            nonclassic: r(NONCLASSIC),
            lost: r(LOST),
            ignored: r(IGNORED),
            summary: r(SUMMARY),
            payload: r(PAYLOAD),
        }
    }

    /// An event line of blkparse (`blkparse` true) or tracefs text, or what else it is.
    pub fn parse<'a>(&self, line: &'a str, blkparse: bool) -> Result<Line<'a>, Other> {
        let (c, layout) = if blkparse {
            (self.blkparse.captures(line), super::Layout::Blkparse)
        } else {
            match self.classic.captures(line) {
                Some(c) => (Some(c), super::Layout::Classic),
                None => (self.nonclassic.captures(line), super::Layout::NonClassic),
            }
        };
        let Some(c) = c else {
            return Err(self.other(line, blkparse));
        };
        let (Some(maj), Some(min), Some(cpu), Some(pid), Some(s)) =
            (num(&c, "maj"), num(&c, "min"), num(&c, "cpu"), num(&c, "pid"), num::<i64>(&c, "s"))
        else {
            return Err(Other::Unparsed); // digits beyond the column's range
        };
        let task = c.name("task").map(|m| m.as_str()).filter(|t| *t != "<...>");
        let rest = c.name("rest").map_or("", |m| m.as_str());
        let mut ln = Line {
            maj,
            min,
            cpu,
            seq: if blkparse { num(&c, "seq") } else { None },
            pid,
            abs_ns: ns(s, c.name("f").unwrap().as_str().as_bytes()),
            act: super::long_action(c.name("act").unwrap().as_str()),
            rwbs: c.name("rwbs").unwrap().as_str(),
            layout,
            task,
            ..Line::default()
        };
        self.payload(&mut ln, rest);
        Ok(ln)
    }

    fn other(&self, line: &str, blkparse: bool) -> Other {
        if blkparse {
            return if self.summary.is_match(line) { Other::Summary } else { Other::Unparsed };
        }
        if let Some(c) = self.lost.captures(line) {
            return match (num(&c, "cpu"), num(&c, "n")) {
                (Some(cpu), Some(n)) => Other::Lost(cpu, n),
                _ => Other::Unparsed,
            };
        }
        if self.ignored.is_match(line) { Other::Ignored } else { Other::Unparsed }
    }

    /// The text after RWBS -> sector, count, bracket, remap, split, unplug count, SCSI command, message.
    pub fn payload<'a>(&self, ln: &mut Line<'a>, rest: &'a str) {
        let t = rest.trim();
        ln.rest = rest;
        let is_msg = ln.act == "m";
        if is_msg {
            ln.message = Some(t);
        }
        let Some(g) = self.payload.captures(t) else {
            ln.payload_ok = is_msg;
            return;
        };
        let a: Option<i64> = num(&g, "a");
        let cdb = g.name("cdb").map(|m| m.as_str());
        let br = g.name("br").map(|m| m.as_str());
        let is_pc = cdb.is_some();
        ln.sector = if is_pc || is_msg { None } else { a };
        ln.nsectors = if is_msg { None } else { num(&g, "n") };
        ln.remap = match (num(&g, "rmaj"), num(&g, "rmin")) {
            (Some(x), Some(y)) => Some((x, y, num(&g, "rsec"))),
            _ => None,
        };
        ln.split = num(&g, "split");
        ln.unplug = num(&g, "cnt");
        ln.pc_bytes = if is_pc { a } else { None };
        ln.cdb = cdb;
        ln.set_bracket(br);
        ln.payload_ok = is_msg || g.name("a").is_some() || br.is_some() || is_pc;
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fractions_of_any_length_are_exact_nanoseconds() {
        assert_eq!(super::ns(12, b"5"), 12_500_000_000);
        assert_eq!(super::ns(0, b"000032692"), 32_692);
        assert_eq!(super::ns(583, b"245661688123"), 583_245_661_688);
        assert_eq!(super::ns(1, b"000001"), 1_000_001_000);
    }
}
