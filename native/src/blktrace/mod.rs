//! Binary blktrace (struct blk_io_trace v7, blk_io_trace2 v8) -> events.
//!
//! Inputs: per-CPU files `<name>.blktrace.<cpu>`, a directory of them, a set prefix (`dir/sda`), or single
//! files such as a merged `blkparse -d` dump; .zst/.gz/.xz read transparently. Unlike blkparse, a gap in the
//! CPU list does not stop reading; it is reported, like per-CPU sequence gaps and resynchronisations.
//!
//! One pass, bounded memory: each file of a set is mapped (or read()) in windows of about 1 MB, walked and decoded
//! (decode.rs; on the file's read-ahead thread when there are CPUs for them or it is compressed) and copied
//! into columns (stream.rs), and the files advance together up to a common time horizon, so a process name (a
//! notify record, written on whichever CPU first saw the pid) is known before that pid's events on other CPUs
//! are written, and time_ns counts from the earliest first event (blkparse's genesis).
//!
//! On two CPUs that share no cache (cpus.rs) the whole read runs twice, on two threads: one fills and writes
//! the columns before events::SPLIT, the other fills and encodes the rest and hands over only the encoded
//! chunks (`splits`, sink.rs). Both meet the same windows, horizons and row groups, so the file is the one
//! thread's byte for byte.
//!
//! Row order: each CPU's events in time order, CPUs interleaved in horizon blocks (a block ends at the
//! last event time of the window the slowest file holds); NOT one global time order (blkparse prints
//! that). `sort("time_ns")` where needed (a global order needs a k-way merge
//! per row: not tried, the speed budget of issue B is spent).

mod codes;
mod decode;
mod gather8;
pub(crate) mod layout;
mod names;
mod stream;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::events::{Cols, Dict};
use crate::input::{self, Progress};
use crate::report::{Fail, Report};
use crate::sink::Sink;
use names::Names;
use decode::Tables;
use stream::Stream;

// Bytes of raw input read (or mapped: mapped.rs) at a time per set, split among its files: small enough that
// the walk, the decode and the column pass find the window in cache.
const WINDOW_TOTAL: usize = 2 << 20;
const WINDOW_MIN: usize = 1 << 20;
/// Sets of more files than this are read on the decoding thread (a thread each would be more threads
/// than this gains on a few cores).
const READ_AHEAD_FILES: usize = 8;

/// Window sizes: BLKSCOPE_BLKTRACE_WINDOWS="TOTAL,MIN" overrides them (tests cut records at window edges).
fn windows() -> (usize, usize) {
    std::env::var("BLKSCOPE_BLKTRACE_WINDOWS")
        .ok()
        .and_then(|v| {
            let (a, b) = v.split_once(',')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .unwrap_or((WINDOW_TOTAL, WINDOW_MIN))
}

/// `<name>.blktrace.<cpu>[.zst|.gz|.xz]` -> (name, cpu)
fn set_name(file: &str) -> Option<(&str, u32)> {
    let base = file.strip_suffix(".zst").or(file.strip_suffix(".gz")).or(file.strip_suffix(".xz")).unwrap_or(file);
    let (name, cpu) = base.rsplit_once(".blktrace.")?;
    if name.is_empty() || cpu.is_empty() || !cpu.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((name, cpu.parse().ok()?))
}

type Sets = BTreeMap<String, Vec<(Option<u32>, PathBuf)>>;

/// Input paths -> {set name: [(cpu from the file name or None, path)]} (sets in name order, as Python's
/// dict of sorted files gave).
fn resolve(inputs: &[PathBuf]) -> Result<(Vec<String>, Sets), Fail> {
    let mut order = Vec::new();
    let mut sets = Sets::new();
    let matching = |dir: &Path, prefix: Option<&str>| -> Result<Vec<PathBuf>, Fail> {
        let rd = std::fs::read_dir(if dir.as_os_str().is_empty() { Path::new(".") } else { dir })
            .map_err(|e| Fail::io(dir, e))?;
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                let f = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
                set_name(f).is_some_and(|(n, _)| prefix.is_none_or(|pre| n == pre))
            })
            .map(|p| if dir.as_os_str().is_empty() { PathBuf::from(p.file_name().unwrap()) } else { p })
            .collect();
        v.sort();
        Ok(v)
    };
    for p in inputs {
        let files = if p.is_dir() {
            let v = matching(p, None)?;
            if v.is_empty() {
                return Err(Fail::new(p, None, "directory holds no <name>.blktrace.<cpu> files"));
            }
            v
        } else if p.exists() {
            vec![p.clone()]
        } else {
            let name = p.file_name().and_then(|f| f.to_str()).unwrap_or("");
            let v = matching(p.parent().unwrap_or(Path::new("")), Some(name))?;
            if v.is_empty() {
                return Err(Fail::new(p, None, format!("no such file, and no set prefix: no files named {name}.blktrace.N")));
            }
            v
        };
        for f in files {
            let fname = f.file_name().and_then(|x| x.to_str()).unwrap_or("").to_owned();
            let (key, cpu) = match set_name(&fname) {
                Some((n, c)) => (f.parent().unwrap_or(Path::new("")).join(n).display().to_string(), Some(c)),
                None => (f.display().to_string(), None),
            };
            if !sets.contains_key(&key) {
                order.push(key.clone());
            }
            sets.entry(key).or_default().push((cpu, f));
        }
    }
    for files in sets.values_mut() {
        files.sort_by_key(|(c, _)| (c.is_none(), c.unwrap_or(0)));
    }
    Ok((order, sets))
}

/// Whether to read the input twice on two threads, each filling and encoding part of the columns
/// (`Sink::split`): when the probe found the process's two CPUs apart (cpus.rs), the files uncompressed
/// (decompressing twice would cost more) and there are rows to write. The threads then share only the
/// encoded chunks (~5 bytes a row) instead of the columns (~60), whose hand-over between caches made a
/// two-thread read there slower than one thread: bench set 0.25 s split against 0.33 s one thread apart;
/// with the CPUs together 0.24 s against the decoder and writer threads' 0.22 s (bench/RESULTS.md,
/// 2026-11-30 ninth session). BLKSCOPE_NATIVE_SPLIT=1 splits on any CPUs (the tests), =0 never.
pub fn splits(inputs: &[PathBuf]) -> Result<bool, Fail> {
    if crate::part::get().origin_only {
        return Ok(false);
    }
    match std::env::var("BLKSCOPE_NATIVE_SPLIT").as_deref() {
        Ok("1") => return Ok(true),
        Ok("0") => return Ok(false),
        _ => {}
    }
    if !crate::cpus::apart_pair() {
        return Ok(false);
    }
    let (_, sets) = resolve(inputs)?;
    let files: Vec<(Option<u32>, PathBuf)> = sets.into_values().flatten().collect();
    Ok(!any_compressed(&files)?)
}

pub fn read(inputs: &[PathBuf], sink: &mut Sink, rep: &mut Report, progress: bool) -> Result<(), Fail> {
    let (order, sets) = resolve(inputs)?;
    for k in ["sets", "files", "sequence_gaps"] {
        rep.trace.insert(k.into(), json!({}));
    }
    rep.trace.insert("resyncs".into(), json!([]));
    rep.trace.insert("dropped_events".into(), Value::Null);
    // action and rwbs keys are the codes themselves: dictionaries fixed up front
    sink.ev.action.dict = Dict::with_values(&codes::action_names().iter().map(|s| s.as_str()).collect::<Vec<_>>());
    sink.ev.rwbs.dict = Dict::with_values(&codes::rwbs_names().iter().map(|s| s.as_str()).collect::<Vec<_>>());
    let names = codes::action_names();
    let t = std::sync::Arc::new(Tables::new(
        codes::category_keys(),
        std::array::from_fn(|c| names.get(c).is_some_and(|n| n.starts_with('?') || n == "ABORT" || n == "DRV")),
        std::array::from_fn(|c| !codes::no_sector(c)),
    ));
    let paths: Vec<&Path> = sets.values().flatten().map(|(_, p)| p.as_path()).collect();
    if crate::part::get().range.is_some() && paths.len() != 1 {
        return Err(Fail::new(&inputs[0], None, format!("--range reads one file, got {}", paths.len())));
    }
    let mut bar = Progress::new(progress, "blktrace", input::total_size(&paths)?);
    for name in &order {
        let files = &sets[name];
        let cpus: Vec<u32> = files.iter().filter_map(|(c, _)| *c).collect();
        let missing: Vec<u32> = match cpus.iter().max() {
            Some(&m) => (0..=m).filter(|c| !cpus.contains(c)).collect(),
            None => vec![],
        };
        rep.trace["sets"][name] = json!({"cpu_files": cpus, "missing_cpus": missing});
        if !missing.is_empty() && !crate::part::get().part {
            rep.warn(format!("{name}: CPU list has a gap (no file for CPU {missing:?}); blkparse stops at the first \
                              missing CPU and drops the files after it, blkscope reads all {} files", files.len()));
        }
        read_set(name, files, sink, rep, &t, &mut bar)?;
    }
    bar.finish();
    Ok(())
}

/// Whether any of the files is compressed (sniffed only where it decides the threads).
fn any_compressed(files: &[(Option<u32>, PathBuf)]) -> Result<bool, Fail> {
    for (_, p) in files {
        if input::is_compressed(p)? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn read_set(name: &str, files: &[(Option<u32>, PathBuf)], sink: &mut Sink, rep: &mut Report, t: &std::sync::Arc<Tables>,
            bar: &mut Progress) -> Result<(), Fail> {
    let (total, min) = windows();
    let window = min.max(total / files.len());
    let mut names = Names::default();
    let mut streams = Vec::with_capacity(files.len());
    // A read-ahead thread per file (for the usual few per-CPU files) when each has a CPU beside this thread and
    // the writer's, or when the files are compressed (decompressing is then most of the work: 0.36 s with them
    // against 0.45 s without, the bench set in zstd on two CPUs). Otherwise this thread reads and decodes too, no
    // more threads than CPUs: four on two were no faster than two over 31 uncompressed sets (bench/RESULTS.md,
    // 2026-11-30 seventh session). The threads decode too unless they outnumber the CPUs (compressed files, 8
    // on 2 cores: then they only read and decompress; decoding there cost influx_keks 0.06 s more).
    let cpus = if sink.cols == Cols::All { crate::cpus::cpus() } else { 1 }; // a split read: a thread each
    let ahead = cpus > 1 && files.len() <= READ_AHEAD_FILES && (cpus >= files.len() + 2 || any_compressed(files)?);
    let decode_ahead = ahead && files.len() <= cpus;
    for (cpu, path) in files {
        streams.push(Stream::open(path, *cpu, window, ahead, decode_ahead, sink.cols, t)?);
    }
    for s in streams.iter_mut() {
        s.fill(&mut names, sink, rep, bar)?;
    }
    let part = crate::part::get();
    // a part counts from the whole set's origin (parts.py finds it with --origin-only)
    let origin = part.origin.map(|o| o as u64).or_else(|| streams.iter().filter_map(|s| s.first_time).min());
    let o = origin.unwrap_or(0);
    if part.origin_only {
        rep.trace["sets"][name].as_object_mut().unwrap().insert("time_origin_ns".into(), json!(origin));
        return Ok(());
    }
    loop {
        for s in streams.iter_mut() {
            while s.empty() && !s.done {
                s.fill(&mut names, sink, rep, bar)?;
            }
        }
        let live: Vec<usize> = (0..streams.len()).filter(|&i| !streams[i].empty()).collect();
        if live.is_empty() {
            break;
        }
        let horizon = live.iter().filter(|&&i| !streams[i].done).map(|&i| streams[i].last_time()).min();
        for &i in &live {
            streams[i].take(horizon, &mut names, o, sink, t)?;
        }
    }
    let early: u64 = streams.iter().map(|s| s.before_origin).sum();
    if early > 0 {
        rep.warn(format!("{name}: {early} events are earlier than the first event of their file (negative time_ns)"));
    }
    for s in &streams {
        s.finish(rep);
        for (&(dev, cpu), &(missing, backwards)) in &s.state.gaps {
            let key = format!("{},{} cpu{cpu}", dev >> 20, dev & 0xFFFFF);
            let g = rep.trace["sequence_gaps"].as_object_mut().unwrap().entry(key)
                .or_insert_with(|| json!({"missing": 0, "out_of_order": 0}));
            g["missing"] = json!(g["missing"].as_i64().unwrap() + missing);
            g["out_of_order"] = json!(g["out_of_order"].as_i64().unwrap() + backwards);
        }
    }
    let wall = names.wall.map(|(sec, nsec, at)| json!({"sec": sec, "nsec": nsec, "at_time_ns": at}));
    let set = rep.trace["sets"][name].as_object_mut().unwrap();
    set.insert("time_origin_ns".into(), json!(origin));
    set.insert("wall_clock".into(), wall.unwrap_or(Value::Null));
    set.insert("processes".into(), json!(names.processes()));
    Ok(())
}
