//! `parquet-check ingest KIND ours|arrow --out EVENTS.parquet --report REPORT.json INPUT...` (feature `ingest`,
//! the writer bench's): native/src's trace readers writing with our writer or with arrow-rs's ArrowWriter.

use std::path::PathBuf;

use crate::report::{self, Report};
use crate::sink::Sink;
use crate::{blktrace, events, text, USAGE};

pub fn run(args: &[String]) -> Result<(), String> {
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
