//! `blkscope-native replay`: one pass over a trace's block events in time order that yields the latency
//! stages of every bio (matched as btt does, src/blkscope/analysis/latency.py says how) and the queue
//! depth (D-to-C requests in flight, src/blkscope/analysis/queue_depth.py). Memory holds only what is in
//! flight (tracked Qs, issued requests), not the trace: the Python side feeds the events window by window
//! (src/blkscope/analysis/replay.py), so a trace split into parts is one stream with its in-flight requests
//! carried across the parts' boundaries.
//!
//! Usage: blkscope-native replay --out DIR --t0 NS --t1 NS --bin NS < chunks
//! A chunk: u64 n, then n values of each column, little-endian: dev i64, t i64, act u8 (0 Q, 1 G, 2 I,
//! 3 M, 4 F, 5 D, 6 C), sector i64, nsectors i64, rw u32. n = 0 ends the stream.
//! DIR receives one file per bio column (dev, rw, sector, nsectors, q, g, i, m, d, c; i64, rw u32;
//! i64::MIN = not seen), one row per tracked Q in the order they left tracking, and queue_depth.json.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;

use crate::chunks::{self, i64s, read_col};

const NONE: i64 = i64::MIN;

#[derive(Clone, Copy)]
struct Bio {
    dev: i64,
    rw: u32,
    s: i64,
    n: i64,
    t: [i64; 6], // q g i m d c
}

struct Out {
    files: Vec<BufWriter<File>>,
    rows: u64,
}

impl Out {
    const NAMES: [&'static str; 10] = ["dev", "rw", "sector", "nsectors", "q", "g", "i", "m", "d", "c"];

    fn create(dir: &Path) -> io::Result<Out> {
        let files = Self::NAMES
            .iter()
            .map(|n| File::create(dir.join(format!("{n}.bin"))).map(|f| BufWriter::with_capacity(1 << 16, f)))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Out { files, rows: 0 })
    }

    fn emit(&mut self, b: &Bio) -> io::Result<()> {
        self.files[0].write_all(&b.dev.to_le_bytes())?;
        self.files[1].write_all(&b.rw.to_le_bytes())?;
        self.files[2].write_all(&b.s.to_le_bytes())?;
        self.files[3].write_all(&b.n.to_le_bytes())?;
        for k in 0..6 {
            self.files[4 + k].write_all(&b.t[k].to_le_bytes())?;
        }
        self.rows += 1;
        Ok(())
    }
}

/// The btt matcher: tracked Qs per device by start sector.
#[derive(Default)]
struct Bios {
    devs: HashMap<i64, BTreeMap<i64, usize>>,
    slots: Vec<Bio>,
    free: Vec<usize>,
}

impl Bios {
    fn event(&mut self, dev: i64, t: i64, act: u8, s: i64, n: i64, rw: u32, out: &mut Out) -> io::Result<()> {
        if act == 0 {
            let d = self.devs.entry(dev).or_default(); // the device's first Q ends btt's pre-culling
            if d.contains_key(&s) {
                return Ok(());
            }
            let b = Bio { dev, rw, s, n, t: [t, NONE, NONE, NONE, NONE, NONE] };
            let slot = match self.free.pop() {
                Some(k) => {
                    self.slots[k] = b;
                    k
                }
                None => {
                    self.slots.push(b);
                    self.slots.len() - 1
                }
            };
            d.insert(s, slot);
            return Ok(());
        }
        let Some(d) = self.devs.get_mut(&dev) else { return Ok(()) };
        match act {
            1..=4 => {
                // the tracked Q whose range holds the sector: G, I, M (F counts as M)
                if let Some((&start, &k)) = d.range(..=s).next_back() {
                    if s < start + self.slots[k].n {
                        self.slots[k].t[if act == 4 { 3 } else { act as usize }] = t;
                    }
                }
            }
            _ => {
                // D or C: every tracked Q inside [s, s + n)
                let hi = s + n;
                let inside: Vec<(i64, usize)> =
                    d.range(s..hi).filter(|(&st, &k)| st + self.slots[k].n <= hi).map(|(&st, &k)| (st, k)).collect();
                for (st, k) in inside {
                    if act == 5 {
                        self.slots[k].t[4] = t;
                    } else {
                        self.slots[k].t[5] = t;
                        d.remove(&st);
                        out.emit(&self.slots[k])?;
                        self.free.push(k);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Out) -> io::Result<()> {
        let mut devs: Vec<_> = self.devs.iter().collect();
        devs.sort_by_key(|(d, _)| **d);
        for (_, d) in devs {
            for &k in d.values() {
                out.emit(&self.slots[k])?;
            }
        }
        Ok(())
    }
}

/// D-to-C requests in flight as a step function, integrated as it goes: per bin, per depth.
struct Depth {
    t0: i64,
    t1: i64,
    bin: i64,
    now: i64,
    depth: i64,
    max_depth: i64,
    pending: HashMap<(i64, i64, i64), Vec<i64>>, // issued, not completed: (dev, sector, n) -> D times
    c_now: HashSet<(i64, i64, i64)>,           // Cs at the current time (a D at the same time pairs with them)
    bins: Vec<i128>,                           // depth x ns per bin
    by_depth: BTreeMap<i64, i128>,             // ns spent at each depth
    requests: u64,
    completed: u64,
    d2c_ns: i128,
}

impl Depth {
    fn new(t0: i64, t1: i64, bin: i64) -> Depth {
        let nb = if t1 > t0 { ((t1 - t0) + bin - 1) / bin } else { 1 };
        let mut by_depth = BTreeMap::new();
        by_depth.insert(0, 0);
        Depth {
            t0, t1, bin, now: t0, depth: 0, max_depth: 0, pending: HashMap::new(), c_now: HashSet::new(),
            bins: vec![0; nb as usize], by_depth, requests: 0, completed: 0, d2c_ns: 0,
        }
    }

    /// Move the clock to t, adding the area of the current depth.
    fn advance(&mut self, t: i64) {
        let t = t.clamp(self.t0, self.t1);
        if t <= self.now {
            return;
        }
        if self.depth != 0 {
            let mut a = self.now;
            while a < t {
                let k = ((a - self.t0) / self.bin) as usize;
                let end = (self.t0 + (k as i64 + 1) * self.bin).min(t);
                self.bins[k] += self.depth as i128 * (end - a) as i128;
                a = end;
            }
        }
        *self.by_depth.entry(self.depth).or_insert(0) += (t - self.now) as i128;
        self.now = t;
        self.c_now.clear();
    }

    fn set_depth(&mut self, d: i64) {
        self.depth = d;
        self.max_depth = self.max_depth.max(d);
        self.by_depth.entry(d).or_insert(0);
    }

    fn event(&mut self, t: i64, act: u8, key: (i64, i64, i64)) {
        if t > self.now {
            self.advance(t);
        }
        if act == 5 {
            self.requests += 1;
            if self.c_now.contains(&key) {
                // a C at this very time pairs with it (the first C at or after the D, as the asof join)
                self.completed += 1;
                self.set_depth(self.depth + 1);
                self.set_depth(self.depth - 1);
            } else {
                self.pending.entry(key).or_default().push(t);
                self.set_depth(self.depth + 1);
            }
        } else if act == 6 {
            self.c_now.insert(key);
            if let Some(ds) = self.pending.remove(&key) {
                self.completed += ds.len() as u64;
                self.d2c_ns += ds.iter().map(|&d| (t - d) as i128).sum::<i128>();
                self.set_depth(self.depth - ds.len() as i64);
            }
        }
    }

    fn json(&mut self) -> serde_json::Value {
        self.advance(self.t1);
        json!({
            "t0": self.t0, "t1": self.t1, "bin_ns": self.bin,
            "requests": self.requests, "completed": self.completed, "max_depth": self.max_depth,
            "d2c_ns_sum": self.d2c_ns as f64, "in_flight_at_end": self.pending.values().map(|v| v.len()).sum::<usize>(),
            "bin_area": self.bins.iter().map(|&a| a as f64).collect::<Vec<_>>(),
            "depths": self.by_depth.keys().collect::<Vec<_>>(),
            "depth_ns": self.by_depth.values().map(|&a| a as f64).collect::<Vec<_>>(),
        })
    }
}

fn run(out_dir: &Path, t0: i64, t1: i64, bin: i64) -> io::Result<()> {
    let mut out = Out::create(out_dir)?;
    let mut bios = Bios::default();
    let mut depth = Depth::new(t0, t1, bin.max(1));
    let mut r = io::BufReader::with_capacity(1 << 20, io::stdin().lock());
    let (mut dev, mut t, mut act, mut s, mut n, mut rw) = (vec![], vec![], vec![], vec![], vec![], vec![]);
    let mut last_t = i64::MIN;
    loop {
        let rows = chunks::rows(&mut r)?;
        if rows == 0 {
            break;
        }
        for (col, w) in [(&mut dev, 8), (&mut t, 8), (&mut act, 1), (&mut s, 8), (&mut n, 8), (&mut rw, 4)] {
            read_col(&mut r, rows, w, col)?;
        }
        let rws = rw.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()));
        let it = i64s(&dev).zip(i64s(&t)).zip(act.iter()).zip(i64s(&s)).zip(i64s(&n)).zip(rws);
        for (((((dv, tt), &a), ss), nn), w) in it {
            if tt < last_t {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "events not in time order"));
            }
            last_t = tt;
            bios.event(dv, tt, a, ss, nn, w, &mut out)?;
            if a >= 5 {
                depth.event(tt, a, (dv, ss, nn));
            }
        }
    }
    bios.finish(&mut out)?;
    for f in out.files.iter_mut() {
        f.flush()?;
    }
    let mut doc = depth.json();
    doc["bios"] = json!(out.rows);
    std::fs::write(out_dir.join("queue_depth.json"), serde_json::to_vec(&doc).map_err(io::Error::other)?)
}

pub fn main(args: Vec<String>) -> ExitCode {
    let mut it = args.into_iter();
    let (mut out, mut t0, mut t1, mut bin) = (None::<PathBuf>, 0i64, 0i64, 1_000_000_000i64);
    while let Some(a) = it.next() {
        let v = it.next();
        let num = || v.as_deref().and_then(|x| x.parse::<i64>().ok());
        match a.as_str() {
            "--out" => out = v.as_deref().map(PathBuf::from),
            "--t0" => t0 = num().unwrap_or(0),
            "--t1" => t1 = num().unwrap_or(0),
            "--bin" => bin = num().unwrap_or(bin),
            _ => {
                eprintln!("blkscope-native replay: unknown argument {a}");
                return ExitCode::from(64);
            }
        }
    }
    let Some(out) = out else {
        eprintln!("usage: blkscope-native replay --out DIR --t0 NS --t1 NS --bin NS < chunks");
        return ExitCode::from(64);
    };
    match run(&out, t0, t1, bin) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blkscope-native replay: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_is_integrated_per_bin_and_per_depth() {
        let mut d = Depth::new(0, 40, 20);
        d.event(10, 5, (1, 8, 8)); // D
        d.event(30, 6, (1, 8, 8)); // C
        let j = d.json();
        assert_eq!(j["bin_area"], json!([10.0, 10.0]));
        assert_eq!(j["depths"], json!([0, 1]));
        assert_eq!(j["depth_ns"], json!([20.0, 20.0]));
        assert_eq!((j["requests"].as_u64(), j["completed"].as_u64(), j["d2c_ns_sum"].as_f64()), (Some(1), Some(1), Some(20.0)));
    }

    #[test]
    fn a_c_at_the_same_time_before_the_d_completes_it() {
        // as the asof join: the first C at or after the D's time, whatever their order in the trace
        let mut d = Depth::new(0, 10, 10);
        d.event(5, 6, (1, 0, 8));
        d.event(5, 5, (1, 0, 8));
        d.event(7, 5, (1, 0, 8)); // in flight to the end
        let j = d.json();
        assert_eq!((j["completed"].as_u64(), j["in_flight_at_end"].as_u64(), j["max_depth"].as_i64()), (Some(1), Some(1), Some(1)));
        assert_eq!(j["bin_area"], json!([3.0]));
    }

    #[test]
    fn bios_matched_as_btt() {
        let dir = std::env::temp_dir().join(format!("blkscope-replay-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut out = Out::create(&dir).unwrap();
        let mut b = Bios::default();
        b.event(7, 0, 6, 0, 8, 0, &mut out).unwrap(); // C before the device's first Q: ignored
        for (t, a, s, n) in [(100, 0, 8, 8), (110, 0, 16, 8), (120, 3, 16, 8), (130, 1, 8, 8), (150, 2, 8, 8),
                             (400, 5, 8, 16), (1400, 6, 8, 16)] {
            b.event(7, t, a, s, n, 1, &mut out).unwrap();
        }
        b.event(7, 1500, 0, 8, 8, 1, &mut out).unwrap(); // tracked again after its C, never completed
        b.finish(&mut out).unwrap();
        for f in out.files.iter_mut() {
            f.flush().unwrap();
        }
        let col = |n: &str| -> Vec<i64> { i64s(&std::fs::read(dir.join(format!("{n}.bin"))).unwrap()).collect() };
        assert_eq!(col("sector"), vec![8, 16, 8]);
        assert_eq!(col("q"), vec![100, 110, 1500]);
        assert_eq!(col("g"), vec![130, NONE, NONE]);
        assert_eq!(col("m"), vec![NONE, 120, NONE]);
        assert_eq!(col("d"), vec![400, 400, NONE]);
        assert_eq!(col("c"), vec![1400, 1400, NONE]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
