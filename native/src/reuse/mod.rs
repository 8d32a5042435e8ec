//! `blkscope-native reuse`: one pass over a trace's requests in time order that turns each into its 4 KiB pages
//! (as src/blkscope/analysis/frequency.py counts them) and feeds every page access to reuse-distance profiles
//! (profile.rs: exact, SHARDS at a fixed rate, SHARDS at a fixed size) of each stream of requests, and counts
//! the distinct pages of each time window (working-set size). Memory: the exact profile holds every distinct
//! page (~50 bytes each), a SHARDS profile the sampled ones, the working set one window's pages.
//!
//! Usage: blkscope-native reuse --out DIR [--mrc FILE] [--exact] [--shards-rate R]... [--shards-adj R]... [--shards-size S]...
//!        [--stream NAME:MASK]... [--page-sectors 8] [--mode cover|ssd-study] [--t0 NS] [--window NS]
//!        [--dump-pages FILE] [--events FILE [--action C]]... [< chunks]
//! A chunk: u64 n, then n values of each column, little-endian: t i64, sector i64, nsectors i64, class u8
//! (bit 0 write, bit 1 metadata). n = 0 ends the stream. A stream takes the requests whose class c has bit c
//! of MASK set (all = 15, reads = 5, writes = 10, data = 3, metadata = 12).
//! DIR receives reuse.json (per stream: accesses, the working set per window, per profile its summary and the
//! name of its histogram file) and the histogram files: (distance f64, mass f64) pairs, little-endian.
//! --events: the requests are read from these events files (blkscope-native's own Parquet, parquet_in.rs)
//! instead of stdin, the events of --action (default C); t0 is then their first event's time. Exit 3: a file
//! that reader does not take (the caller reads it another way), 2: a damaged one, each named.
//! --dump-pages writes the first stream's page accesses in order (u64, little-endian).
//! --mrc FILE writes the miss-ratio-curve table of every stream and profile there (mrc.rs: the rows `blkscope
//! reuse --mrc` writes); with it --out may be left out (no reuse.json then).

mod mrc;
pub(crate) mod parquet_in;
mod profile;
pub(crate) mod stack;

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};

use crate::chunks::{self, i64s, read_col};

use crate::parquet_read::Error;
use parquet_in::Source;
use profile::Profile;
use stack::PageHasher;

enum Spec {
    Exact,
    Rate(f64, bool),
    Size(usize),
}

struct Stream {
    name: String,
    mask: u8,
    profiles: Vec<Profile>,
    accesses: u64,
    requests: u64,
    window: Option<u64>,
    pages: HashSet<u64, std::hash::BuildHasherDefault<PageHasher>>,
    wss: Vec<(u64, u64)>, // (window, distinct pages) of the windows with accesses
}

impl Stream {
    fn close_window(&mut self) {
        if let Some(w) = self.window {
            self.wss.push((w, self.pages.len() as u64));
            self.pages.clear();
        }
    }
}

struct Args {
    out: PathBuf,
    specs: Vec<Spec>,
    streams: Vec<(String, u8)>,
    page_sectors: i64,
    study: bool,
    t0: i64,
    window: i64,
    dump: Option<PathBuf>,
    mrc: Option<PathBuf>,
    events: Vec<PathBuf>,
    action: String,
}

/// Events per time window of --events (at least 8 row groups): small enough that the pass starts soon after
/// the reading does (the order does not depend on the windows).
const ROWS_PER_WINDOW: usize = 1 << 19;

fn parse(args: Vec<String>) -> Result<Args, String> {
    let mut a = Args { out: PathBuf::new(), specs: vec![], streams: vec![], page_sectors: 8, study: false, t0: 0,
                       window: 0, dump: None, mrc: None, events: vec![], action: "C".into() };
    let mut it = args.into_iter();
    while let Some(k) = it.next() {
        if k == "--exact" {
            a.specs.push(Spec::Exact);
            continue;
        }
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        let bad = || format!("{k}: bad value {v:?}");
        match k.as_str() {
            "--out" => a.out = PathBuf::from(&v),
            "--shards-rate" | "--shards-adj" => {
                let r: f64 = v.parse().map_err(|_| bad())?;
                if !(r > 0.0 && r <= 1.0) {
                    return Err(bad());
                }
                a.specs.push(Spec::Rate(r, k == "--shards-adj"));
            }
            "--shards-size" => a.specs.push(Spec::Size(v.parse().map_err(|_| bad())?)),
            "--stream" => {
                let (n, m) = v.split_once(':').ok_or_else(bad)?;
                a.streams.push((n.to_owned(), m.parse().map_err(|_| bad())?));
            }
            "--page-sectors" => a.page_sectors = v.parse().ok().filter(|&s: &i64| s > 0).ok_or_else(bad)?,
            "--mode" => a.study = match v.as_str() { "cover" => false, "ssd-study" => true, _ => return Err(bad()) },
            "--t0" => a.t0 = v.parse().map_err(|_| bad())?,
            "--window" => a.window = v.parse().map_err(|_| bad())?,
            "--dump-pages" => a.dump = Some(PathBuf::from(&v)),
            "--mrc" => a.mrc = Some(PathBuf::from(&v)),
            "--events" => a.events.push(PathBuf::from(&v)),
            "--action" => a.action = v,
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    if a.out.as_os_str().is_empty() && a.mrc.is_none() {
        return Err("--out DIR or --mrc FILE is required".into());
    }
    if a.streams.is_empty() {
        a.streams.push(("all".into(), 15));
    }
    Ok(a)
}

/// The pass: every request, in time order, to the streams that take it.
struct Pass<'a> {
    a: &'a Args,
    streams: Vec<Stream>,
    last_t: i64,
    t0: i64,
    dump: Option<BufWriter<File>>,
}

impl<'a> Pass<'a> {
    fn new(a: &'a Args, t0: i64) -> io::Result<Pass<'a>> {
        let make = |s: &Spec| match *s {
            Spec::Exact => Profile::exact(),
            Spec::Rate(r, adj) => Profile::rate(r, adj),
            Spec::Size(n) => Profile::size(n),
        };
        let streams = a.streams.iter().map(|(name, mask)| Stream {
            name: name.clone(), mask: *mask, profiles: a.specs.iter().map(make).collect(), accesses: 0, requests: 0,
            window: None, pages: Default::default(), wss: vec![],
        }).collect();
        // the first stream's page sequence, for other tools to read the same accesses (bench, parity tests)
        let dump = a.dump.as_ref().map(|p| File::create(p).map(|f| BufWriter::with_capacity(1 << 20, f))).transpose()?;
        Ok(Pass { a, streams, last_t: i64::MIN, t0, dump })
    }

    #[inline]
    fn request(&mut self, tt: i64, ss: i64, nn: i64, cc: u8) -> io::Result<()> {
        if tt < self.last_t {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "requests not in time order"));
        }
        self.last_t = tt;
        if nn <= 0 || ss < 0 {
            return Ok(());
        }
        let (a, ps) = (self.a, self.a.page_sectors);
        let first = ss / ps;
        // cover: every page the sectors touch; ssd-study: ceil(n / S) pages from the first
        let last = if a.study { first + (nn + ps - 1) / ps - 1 } else { (ss + nn - 1) / ps };
        let w = if a.window > 0 { Some(((tt - self.t0).max(0) / a.window) as u64) } else { None };
        if let Some(f) = self.dump.as_mut().filter(|_| self.streams[0].mask >> (cc & 3) & 1 == 1) {
            for page in first..=last {
                f.write_all(&(page as u64).to_le_bytes())?;
            }
        }
        for st in self.streams.iter_mut().filter(|st| st.mask >> (cc & 3) & 1 == 1) {
            st.requests += 1;
            if w != st.window {
                st.close_window();
                st.window = w;
            }
            for page in first..=last {
                let page = page as u64;
                st.accesses += 1;
                for p in st.profiles.iter_mut() {
                    p.access(page);
                }
                if w.is_some() {
                    st.pages.insert(page);
                }
            }
        }
        Ok(())
    }

    fn finish(self) -> io::Result<()> {
        if let Some(mut f) = self.dump {
            f.flush()?;
        }
        write(self.a, self.streams)
    }
}

/// Requests from chunks on stdin (the Python side's pipe).
fn run(a: &Args, input: impl Read) -> io::Result<()> {
    let mut pass = Pass::new(a, a.t0)?;
    let mut r = io::BufReader::with_capacity(1 << 20, input);
    let (mut t, mut s, mut n, mut c) = (vec![], vec![], vec![], vec![]);
    loop {
        let rows = chunks::rows(&mut r)?;
        if rows == 0 {
            break;
        }
        for (col, w) in [(&mut t, 8), (&mut s, 8), (&mut n, 8), (&mut c, 1)] {
            read_col(&mut r, rows, w, col)?;
        }
        for (((tt, ss), nn), &cc) in i64s(&t).zip(i64s(&s)).zip(i64s(&n)).zip(c.iter()) {
            pass.request(tt, ss, nn, cc)?;
        }
    }
    pass.finish()
}

/// Requests read from the events files themselves; t0 is their first event's time (as the Python's). The
/// reading runs on a thread of its own, a window ahead of the pass (two cores: ~the pass's time alone).
fn run_files(a: &Args) -> Result<(), Error> {
    let src = Source::open(&a.events)?;
    let mut pass = Pass::new(a, src.t0)?;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<parquet_in::Req>>(2);
    let (src, action) = (&src, a.action.as_bytes());
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            src.requests(action, ROWS_PER_WINDOW, |w| tx.send(w).map_err(|_| io::Error::other("the pass stopped")))
        });
        let fed = rx.iter().try_for_each(|w| w.iter().try_for_each(|r| pass.request(r.t, r.s, r.n, r.c)));
        drop(rx);
        let read = reader.join().expect("reader thread");
        fed?;
        read
    })?;
    Ok(pass.finish()?)
}

fn write(a: &Args, streams: Vec<Stream>) -> io::Result<()> {
    let streams: Vec<(Stream, Vec<profile::Summary>)> = streams.into_iter().map(|mut st| {
        st.close_window();
        let sums = std::mem::take(&mut st.profiles).into_iter().map(Profile::finish).collect();
        (st, sums)
    }).collect();
    if let Some(f) = &a.mrc {
        mrc::write(f, &streams.iter().map(|(st, sums)| (st.name.as_str(), sums.as_slice())).collect::<Vec<_>>())?;
    }
    if a.out.as_os_str().is_empty() {
        return Ok(());
    }
    let mut docs = vec![];
    for (k, (st, sums)) in streams.iter().enumerate() {
        let mut profs = vec![];
        for (j, sm) in sums.iter().enumerate() {
            let file = format!("hist-{k}-{j}.bin");
            let mut f = BufWriter::new(File::create(a.out.join(&file))?);
            for (d, m) in &sm.pairs {
                f.write_all(&d.to_le_bytes())?;
                f.write_all(&m.to_le_bytes())?;
            }
            f.flush()?;
            profs.push(json!({
                "method": sm.method, "rate": sm.rate, "size_limit": sm.size_limit, "accesses": sm.accesses,
                "sampled_accesses": sm.sampled_accesses, "sampled_pages": sm.sampled_pages, "cold": sm.cold,
                "hist": file,
            }));
        }
        docs.push(json!({
            "name": st.name, "mask": st.mask, "requests": st.requests, "accesses": st.accesses, "profiles": profs,
            "wss_window": st.wss.iter().map(|w| w.0).collect::<Vec<_>>(),
            "wss_pages": st.wss.iter().map(|w| w.1).collect::<Vec<_>>(),
        }));
    }
    let doc: Value = json!({"page_sectors": a.page_sectors, "window_ns": a.window, "t0": a.t0, "streams": docs});
    std::fs::write(Path::new(&a.out).join("reuse.json"), serde_json::to_vec(&doc).map_err(io::Error::other)?)
}

pub fn main(args: Vec<String>) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("blkscope-native reuse: {e}");
            return ExitCode::from(64);
        }
    };
    if !a.events.is_empty() {
        return match run_files(&a) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("blkscope-native reuse: {e}");
                // 3: a file this reader does not take, which the caller can read another way
                ExitCode::from(if matches!(e, Error::Unsupported(_)) { 3 } else { 2 })
            }
        };
    }
    match run(&a, io::stdin().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blkscope-native reuse: {e}");
            ExitCode::from(2)
        }
    }
}
