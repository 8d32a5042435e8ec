//! native/src/sink.rs with a choice of writer: ours (native/src/parquet.rs) or arrow-rs's ArrowWriter
//! (arrow_writer.rs). The decoders of native/src fill `ev` exactly as in blkscope-native.

use std::path::Path;

use crate::arrow_writer::ArrowEvents;
use crate::events::Events;
use crate::parquet::{thread_cpu, EventsWriter};
use crate::report::Fail;

pub enum Writer {
    Ours(EventsWriter),
    Arrow(ArrowEvents),
}

pub struct Sink {
    pub ev: Events,
    writer: Writer,
    out: String,
    pub rows: i64,
    group: usize,
    spent: std::time::Duration, // CPU time in the writer; printed when BLKSCOPE_NATIVE_TIMING is set
}

impl Sink {
    pub fn with_writer(path: &Path, group: usize, arrow: bool) -> Result<Sink, Fail> {
        let group = group.max(1);
        let fail = |e: String| Fail::new(path, None, format!("cannot write: {e}"));
        let writer = if arrow {
            Writer::Arrow(ArrowEvents::create(path, group).map_err(|e| fail(e.to_string()))?)
        } else {
            Writer::Ours(EventsWriter::create(path).map_err(|e| fail(e.to_string()))?)
        };
        Ok(Sink { ev: Events::new(group), writer, out: path.display().to_string(), rows: 0, group, spent: Default::default() })
    }
    #[inline]
    pub fn end_row(&mut self) -> Result<(), Fail> {
        if self.ev.len() >= self.group {
            self.flush()?;
        }
        Ok(())
    }
    #[inline]
    pub fn room(&self) -> usize {
        self.group.saturating_sub(self.ev.len()).max(1)
    }
    pub fn flush(&mut self) -> Result<(), Fail> {
        let t = thread_cpu();
        self.rows += self.ev.len() as i64;
        let r = match &mut self.writer {
            Writer::Ours(w) => w.write(&self.ev).map_err(|e| e.to_string()),
            Writer::Arrow(w) => w.write(&self.ev).map_err(|e| e.to_string()),
        };
        self.ev.clear();
        self.spent += thread_cpu() - t;
        r.map_err(|e| Fail::new(Path::new(&self.out), None, format!("cannot write: {e}")))
    }
    pub fn finish(mut self) -> Result<i64, Fail> {
        self.flush()?;
        let out = self.out.clone();
        let t = thread_cpu();
        let arrow = matches!(self.writer, Writer::Arrow(_));
        let r = match self.writer {
            Writer::Ours(w) => w.finish().map(|_| ()).map_err(|e| e.to_string()),
            Writer::Arrow(w) => w.finish().map_err(|e| e.to_string()),
        };
        r.map_err(|e| Fail::new(Path::new(&out), None, format!("cannot write: {e}")))?;
        if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
            let s = (self.spent + thread_cpu() - t).as_secs_f64();
            eprintln!("parquet-check: {s:.3} s CPU in the writer ({}), {} rows", if arrow { "arrow-rs" } else { "ours" }, self.rows);
        }
        Ok(self.rows)
    }
}
