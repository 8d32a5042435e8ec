//! blkscope-native: the trace readers of `blkscope ingest` (kinds blktrace, blkparse, ftrace) in
//! compiled code, because Python cannot read traces at disk speed (issue B, bench/RESULTS.md).
//!
//! Usage: blkscope-native KIND --out EVENTS.parquet --report REPORT.json [--progress] [PART OPTIONS] INPUT...
//! (part options: part.rs), or blkscope-native replay ... (replay.rs: latency stages and queue depth), or
//! blkscope-native reuse ... (reuse/: reuse distance, miss-ratio curves, working set), or
//! blkscope-native pages ... (pages.rs: per-page access counts), or
//! blkscope-native boot-means (boot.rs: a co-process computing bootstrap replicate means).
//! Exit 0: table and report written. Exit 2: bad input; the report holds {"error": {path, where, message}}
//! and the table is removed. src/blkscope/native.py runs this and merges the report into ingest.json.

mod blktrace;
mod boot;
mod chunks;
mod cpus;
mod encode;
mod events;
mod fx;
mod gather;
mod input;
mod mapped;
mod pages;
mod parquet;
mod parquet_read;
mod part;
mod replay;
mod report;
mod reuse;
mod sample;
mod sink;
mod table;
mod text;
mod thrift;
mod thrift_read;

use std::path::PathBuf;
use std::process::ExitCode;

use report::{Fail, Report};
use sink::Sink;

struct Args {
    kind: String,
    out: PathBuf,
    report: PathBuf,
    progress: bool,
    rows: usize,
    group: usize,
    inputs: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let kind = it.next().ok_or("usage: blkscope-native KIND --out FILE --report FILE [--progress] INPUT...")?;
    let (mut out, mut report, mut progress) = (None, None, false);
    let (mut rows, mut group) = (0usize, events::ROW_GROUP);
    let mut inputs = Vec::new();
    let mut part = part::Part::default();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "--report" => report = it.next().map(PathBuf::from),
            "--progress" => progress = true,
            "--rows" => rows = it.next().and_then(|s| s.parse().ok()).ok_or("--rows N")?,
            "--row-group" => group = it.next().and_then(|s| s.parse().ok()).ok_or("--row-group N")?,
            "--origin" => part.origin = Some(it.next().and_then(|s| s.parse().ok()).ok_or("--origin NS")?),
            "--range" => {
                let r = it.next().and_then(|s| {
                    let (a, b) = s.split_once(':')?;
                    Some((a.parse().ok()?, b.parse().ok()?))
                });
                part.range = Some(r.ok_or("--range START:END")?);
            }
            "--part" => part.part = true,
            "--origin-only" => part.origin_only = true,
            _ => inputs.push(PathBuf::from(a)),
        }
    }
    part::set(part);
    Ok(Args {
        kind,
        out: out.ok_or("--out is required")?,
        report: report.ok_or("--report is required")?,
        progress,
        rows,
        group,
        inputs,
    })
}

fn run(a: &Args, rep: &mut Report) -> Result<(), Fail> {
    if a.inputs.is_empty() && a.kind != "parquet-sample" {
        return Err(Fail::new(&a.out, None, "no inputs"));
    }
    let mut sink = if a.kind == "blktrace" && blktrace::splits(&a.inputs)? {
        let inputs = a.inputs.clone();
        // the second read's report is the same as this one's: dropped
        Sink::split(&a.out, a.group, move |s| blktrace::read(&inputs, s, &mut Report::default(), false))?
    } else {
        Sink::with_group(&a.out, a.group)?
    };
    match a.kind.as_str() {
        "blktrace" => blktrace::read(&a.inputs, &mut sink, rep, a.progress)?,
        "blkparse" => text::read_blkparse(&a.inputs, &mut sink, rep, a.progress)?,
        "ftrace" => text::read_ftrace(&a.inputs, &mut sink, rep, a.progress)?,
        "parquet-sample" => sample::write(&mut sink, a.rows)?,
        k => return Err(Fail::new(&a.out, None, format!("unknown kind {k:?}"))),
    }
    rep.rows = sink.finish()?;
    Ok(())
}

/// Keep freed memory in the heap (glibc: no mmap per large block, no trimming of the top), so each row
/// group reuses the pages of the last instead of faulting in fresh zeroed ones (binary bench set: 0.50 s
/// CPU instead of 0.57).
fn keep_freed_memory() {
    // SAFETY: mallopt only tunes allocator thresholds; called before any allocation that matters
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    if std::env::args().nth(1).as_deref() == Some("replay") {
        return replay::main(std::env::args().skip(2).collect());
    }
    if std::env::args().nth(1).as_deref() == Some("boot-means") {
        return boot::main();
    }
    if std::env::args().nth(1).as_deref() == Some("reuse") {
        return reuse::main(std::env::args().skip(2).collect());
    }
    if std::env::args().nth(1).as_deref() == Some("pages") {
        return pages::main(std::env::args().skip(2).collect());
    }
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("blkscope-native: {e}");
            return ExitCode::from(64);
        }
    };
    let mut rep = Report::default();
    let (doc, code) = match run(&a, &mut rep) {
        Ok(()) => (rep.to_json(), 0),
        Err(f) => {
            let _ = std::fs::remove_file(&a.out); // never a partial table
            (f.to_json(), 2)
        }
    };
    if let Err(e) = std::fs::write(&a.report, serde_json::to_vec(&doc).expect("json")) {
        eprintln!("blkscope-native: cannot write {}: {e}", a.report.display());
        return ExitCode::from(74);
    }
    ExitCode::from(code)
}
