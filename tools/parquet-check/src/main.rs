//! parquet-check: our Parquet writer (native/src/parquet.rs) against arrow-rs's `parquet` crate.
//!
//!   parquet-check read FILE.parquet OUT.arrow STATS.json
//!       arrow-rs reads every column and the footer statistics (tests/test_parquet_readers.py compares them
//!       with polars', DuckDB's and the footer's).
//!   parquet-check ingest KIND ours|arrow --out EVENTS.parquet --report REPORT.json INPUT...
//!       blkscope-native's trace readers (native/src, compiled in unchanged) writing with our writer or with
//!       arrow-rs's ArrowWriter, for the writer bench (bench/parquet_writer/run.sh).
//!
//! A crate of its own so that blkscope-native does not depend on arrow-rs.

mod arrow_writer;
mod read;
mod sink;

// native/src's modules as blkscope-native builds them (build.rs lists them; sink.rs here adds the writer choice)
include!(concat!(env!("OUT_DIR"), "/native_mods.rs"));

use std::path::PathBuf;
use std::process::ExitCode;

use report::Report;
use sink::Sink;

const USAGE: &str = "usage: parquet-check read FILE.parquet OUT.arrow STATS.json\n       \
                     parquet-check ingest KIND ours|arrow --out FILE --report FILE INPUT...";

fn ingest(args: &[String]) -> Result<(), String> {
    let [kind, writer, rest @ ..] = args else { return Err(USAGE.into()) };
    let (mut out, mut report, mut inputs) = (None, None, Vec::new());
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = it.next().map(PathBuf::from),
            "--report" => report = it.next().map(PathBuf::from),
            _ => inputs.push(PathBuf::from(a)),
        }
    }
    let (out, report) = (out.ok_or(USAGE)?, report.ok_or(USAGE)?);
    let arrow = match writer.as_str() {
        "ours" => false,
        "arrow" => true,
        w => return Err(format!("unknown writer {w:?}")),
    };
    let mut rep = Report::default();
    let run = |rep: &mut Report| -> Result<(), report::Fail> {
        let mut sink = Sink::with_writer(&out, events::ROW_GROUP, arrow)?;
        match kind.as_str() {
            "blktrace" => blktrace::read(&inputs, &mut sink, rep, false)?,
            "blkparse" => text::read_blkparse(&inputs, &mut sink, rep, false)?,
            "ftrace" => text::read_ftrace(&inputs, &mut sink, rep, false)?,
            k => return Err(report::Fail::new(&out, None, format!("unknown kind {k:?}"))),
        }
        rep.rows = sink.finish()?;
        Ok(())
    };
    let doc = match run(&mut rep) {
        Ok(()) => rep.to_json(),
        Err(f) => {
            let _ = std::fs::remove_file(&out);
            std::fs::write(&report, serde_json::to_vec(&f.to_json()).expect("json")).map_err(|e| e.to_string())?;
            return Err(format!("bad input, see {}", report.display()));
        }
    };
    std::fs::write(&report, serde_json::to_vec(&doc).expect("json")).map_err(|e| e.to_string())
}

/// As blkscope-native's main: keep freed memory in the heap, so row groups reuse pages (both writers).
fn keep_freed_memory() {
    // SAFETY: mallopt only tunes allocator thresholds; called before any allocation that matters
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

fn main() -> ExitCode {
    keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("read") if args.len() == 4 => {
            read::run(args[1].as_ref(), args[2].as_ref(), args[3].as_ref()).map_err(|e| format!("{}: {e}", args[1]))
        }
        Some("ingest") => ingest(&args[1..]),
        _ => Err(USAGE.into()),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parquet-check: {e}");
            ExitCode::from(2)
        }
    }
}
