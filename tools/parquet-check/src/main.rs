//! parquet-check: our Parquet writer (native/src/parquet.rs) against arrow-rs's `parquet` crate.
//!
//!   parquet-check read FILE.parquet OUT.arrow STATS.json
//!       arrow-rs reads every column and the footer statistics (tests/test_parquet_readers.py compares them
//!       with polars', DuckDB's and the footer's).
//!   parquet-check ingest KIND ours|arrow --out EVENTS.parquet --report REPORT.json INPUT...
//!       blkscope-native's trace readers (native/src, compiled in unchanged) writing with our writer or with
//!       arrow-rs's ArrowWriter, for the writer bench (bench/parquet_writer/run.sh). Cargo feature `ingest`,
//!       on by default; the tests' build leaves it out (`read` needs none of native/src; Makefile).
//!
//! A crate of its own so that blkscope-native does not depend on arrow-rs.

#[cfg(feature = "ingest")]
mod arrow_writer;
#[cfg(feature = "ingest")]
mod ingest_cmd;
mod read;
#[cfg(feature = "ingest")]
mod sink;

// native/src's modules as blkscope-native builds them (build.rs lists them; sink.rs here adds the writer choice)
#[cfg(feature = "ingest")]
include!(concat!(env!("OUT_DIR"), "/native_mods.rs"));

use std::process::ExitCode;

const USAGE: &str = "usage: parquet-check read FILE.parquet OUT.arrow STATS.json\n       \
                     parquet-check ingest KIND ours|arrow --out FILE --report FILE INPUT...";

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
        #[cfg(feature = "ingest")]
        Some("ingest") => ingest_cmd::run(&args[1..]),
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
