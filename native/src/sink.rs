//! Where decoders put rows: the current row group, written out whenever it is full.

use std::path::Path;
use std::time::Duration;

use crate::events::Events;
use crate::parquet::{thread_cpu, EventsWriter};
use crate::report::Fail;

pub struct Sink {
    pub ev: Events,
    writer: EventsWriter,
    out: String,
    pub rows: i64,
    group: usize,
    spent: Duration, // CPU time in the writer; printed when BLKSCOPE_NATIVE_TIMING is set (bench/)
}

impl Sink {
    pub fn with_group(path: &Path, group: usize) -> Result<Sink, Fail> {
        let group = group.max(1); // Events::new(group) must leave room for one row
        let writer = EventsWriter::create(path).map_err(|e| Fail::new(path, None, format!("cannot write: {e}")))?;
        Ok(Sink { ev: Events::new(group), writer, out: path.display().to_string(), rows: 0, group, spent: Duration::ZERO })
    }
    /// Call after each complete row (dense and sparse columns pushed): writes a full row group.
    #[inline]
    pub fn end_row(&mut self) -> Result<(), Fail> {
        if self.ev.len() >= self.group {
            self.flush()?;
        }
        Ok(())
    }
    /// Rows the current row group can still take.
    #[inline]
    pub fn room(&self) -> usize {
        self.group.saturating_sub(self.ev.len()).max(1)
    }
    pub fn flush(&mut self) -> Result<(), Fail> {
        let t = thread_cpu();
        self.rows += self.ev.len() as i64;
        let r = self.writer.write(&self.ev).map_err(|e| Fail::new(Path::new(&self.out), None, format!("cannot write: {e}")));
        self.ev.clear();
        self.spent += thread_cpu() - t;
        r
    }
    pub fn finish(mut self) -> Result<i64, Fail> {
        self.flush()?;
        let out = self.out.clone();
        if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
            eprintln!("blkscope-native: {:.3} s writing {} rows", self.spent.as_secs_f64(), self.rows);
        }
        self.writer.finish().map_err(|e| Fail::new(Path::new(&out), None, format!("cannot write: {e}")))?;
        Ok(self.rows)
    }
}
