//! Where decoders put rows: the current row group, written out whenever it is full.
//!
//! With two or more CPUs to run on (cpus.rs), full row groups go to a writer thread that encodes and writes
//! them while the decoder fills the next: the writer was ~1/3 of the binary ingest's CPU (bench/RESULTS.md).
//! A decoder that finds the writer holding both other row groups does not wait: it encodes its full one's
//! columns itself, the last first, until the writer hands one back, which then encodes only the rest. The
//! two threads so share the encoding as their speeds go: on two CPUs the writer had set the wall (0.234 s of
//! CPU against the decoder's 0.218 s on the bench set), and a vCPU the host slows stalls nothing for long.
//! With one (BLKSCOPE_NATIVE_THREADS=1, or `taskset -c 0`), everything runs on the calling thread. A split sink
//! (`Sink::split`, for a binary trace on two CPUs apart) fills part of the columns and appends the rest,
//! encoded by a second reader of the same input. The file is the same every way: row groups are written in
//! the order they fill, their columns in schema order.

use std::path::Path;
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::events::{Cols, Events};
use crate::parquet::{thread_cpu, EventsWriter, Part, COLUMNS};
use crate::report::Fail;

/// Whether helper threads may run: more than one CPU.
pub fn threads() -> bool {
    crate::cpus::cpus() > 1
}

type Written = std::io::Result<(EventsWriter, Duration)>;

/// The writer thread: full row groups in, emptied ones back (their capacity reused), the writer and its
/// CPU time at the end.
struct Behind {
    full: SyncSender<Full>,
    empty: Receiver<Events>,
    spares: usize, // Events made so far besides the current one
    thread: JoinHandle<Written>,
    help: Help,
}

/// A full row group for the writer thread: it encodes columns [0, own) and appends `part`, the others,
/// which the decoder encoded.
struct Full {
    ev: Events,
    own: usize,
    part: Option<Part>,
}

/// The decoder's share of the encoding.
struct Help {
    writer: EventsWriter,
    /// its CPU time and column chunks (BLKSCOPE_NATIVE_TIMING)
    spent: Option<(Duration, usize)>,
    /// BLKSCOPE_NATIVE_HELP=1 (the tests): the decoder encodes the last k columns of every row group whatever
    /// the writer does, k = 0, 1, ... COLUMNS, 0, ... in turn, so that every split of a row group is written
    forced: Option<usize>,
}

impl Help {
    /// Column `col` of `ev`, encoded.
    fn one(&mut self, ev: &Events, col: usize) -> std::io::Result<Part> {
        let t = self.spent.is_some().then(thread_cpu);
        self.writer.write_cols(ev, col..col + 1)?;
        let p = self.writer.take_part().expect("the row group just written");
        if let (Some((spent, chunks)), Some(t)) = (&mut self.spent, t) {
            *spent += thread_cpu() - t;
            *chunks += 1;
        }
        Ok(p)
    }
}

enum Back {
    Here(EventsWriter, Duration),
    Thread(Behind),
    /// a Cols::Second sink: each row group's chunks go to the file's writer (`Sink::split`)
    ToFirst(EventsWriter, SyncSender<Part>),
    Gone,
}

/// The thread that reads the input again for the Cols::Second columns, and its row groups' chunks.
struct Second {
    parts: Receiver<Part>,
    thread: JoinHandle<Result<(), Fail>>,
}

pub struct Sink {
    pub ev: Events,
    /// the columns a reader fills (`Events` documents the split)
    pub cols: Cols,
    back: Back,
    second: Option<Second>,
    out: String,
    pub rows: i64,
    group: usize,
}

/// Row groups in flight besides the one being filled: one being written, one queued.
const SPARES: usize = 2;

impl Sink {
    pub fn with_group(path: &Path, group: usize) -> Result<Sink, Fail> {
        let group = group.max(1); // Events::new(group) must leave room for one row
        let writer = EventsWriter::create(path).map_err(|e| Fail::new(path, None, format!("cannot write: {e}")))?;
        let back = if threads() { Back::Thread(Behind::start(writer)) } else { Back::Here(writer, Duration::ZERO) };
        Ok(Sink { ev: Events::new(group), cols: Cols::All, back, second: None, out: path.display().to_string(), rows: 0,
                  group })
    }

    /// A sink of the Cols::First columns, with a thread running `read` into a sink of the others; each row
    /// group's chunks are encoded there and appended here, so the file is byte for byte the one-thread file.
    /// `read` must put the same rows in the same row groups as the caller's reader (the same reader of the
    /// same input: both run one thread each).
    pub fn split<F>(path: &Path, group: usize, read: F) -> Result<Sink, Fail>
    where
        F: FnOnce(&mut Sink) -> Result<(), Fail> + Send + 'static,
    {
        let group = group.max(1);
        let out = path.display().to_string();
        let writer = EventsWriter::create_part(path, Cols::First).map_err(|e| Fail::new(path, None, format!("cannot write: {e}")))?;
        let (tx, parts) = mpsc::sync_channel::<Part>(SPARES);
        let o = out.clone();
        let thread = std::thread::Builder::new()
            .name("second-columns".into())
            .spawn(move || {
                let back = Back::ToFirst(EventsWriter::second(), tx);
                let mut s = Sink { ev: Events::new(group), cols: Cols::Second, back, second: None, out: o, rows: 0, group };
                read(&mut s)?;
                s.finish().map(|_| ())
            })
            .expect("spawn the second reader");
        Ok(Sink { ev: Events::new(group), cols: Cols::First, back: Back::Here(writer, Duration::ZERO),
                  second: Some(Second { parts, thread }), out, rows: 0, group })
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
    fn fail(&self, e: impl std::fmt::Display) -> Fail {
        Fail::new(Path::new(&self.out), None, format!("cannot write: {e}"))
    }
    pub fn flush(&mut self) -> Result<(), Fail> {
        self.rows += self.ev.len() as i64;
        match &mut self.back {
            Back::Here(w, spent) => {
                let t = thread_cpu();
                let rows = self.ev.len();
                let mut r = w.write(&self.ev);
                self.ev.clear();
                if let (Some(s), true, true) = (&self.second, r.is_ok(), rows > 0) {
                    match s.parts.recv() {
                        Ok(p) => r = w.append(p),
                        Err(_) => return Err(self.second_stopped()),
                    }
                }
                *spent += thread_cpu() - t;
                r.map_err(|e| self.fail(e))
            }
            Back::ToFirst(w, to) => {
                let r = w.write(&self.ev);
                self.ev.clear();
                r.map_err(|e| Fail::new(Path::new(&self.out), None, format!("cannot encode: {e}")))?;
                let sent = w.take_part().is_none_or(|p| to.send(p).is_ok());
                if sent { Ok(()) } else { Err(self.fail("the file's writer stopped")) }
            }
            Back::Thread(b) => {
                if self.ev.len() == 0 {
                    return Ok(());
                }
                let (mut own, mut parts) = (COLUMNS, Vec::new()); // parts: the last column's first
                let cannot = |e: std::io::Error| Fail::new(Path::new(&self.out), None, format!("cannot encode: {e}"));
                if let Some(turn) = &mut b.help.forced {
                    let k = *turn % (COLUMNS + 1);
                    *turn += 1;
                    while own > COLUMNS - k {
                        own -= 1;
                        parts.push(b.help.one(&self.ev, own).map_err(cannot)?);
                    }
                }
                let mut next = match b.empty.try_recv() {
                    Ok(e) => e,
                    Err(_) if b.spares < SPARES => {
                        b.spares += 1;
                        Events::new(self.group)
                    }
                    // the writer holds the other two row groups: encode this one's columns, the last first,
                    // until it hands one back
                    Err(_) => loop {
                        if own == 0 {
                            match b.empty.recv() {
                                Ok(e) => break e,
                                Err(_) => return Err(self.stopped()),
                            }
                        }
                        own -= 1;
                        parts.push(b.help.one(&self.ev, own).map_err(cannot)?);
                        if let Ok(e) = b.empty.try_recv() {
                            break e;
                        }
                    },
                };
                next.follow(&self.ev);
                let ev = std::mem::replace(&mut self.ev, next);
                parts.reverse();
                if b.full.send(Full { ev, own, part: Part::join(parts) }).is_err() {
                    return Err(self.stopped());
                }
                Ok(())
            }
            Back::Gone => Err(self.fail("writer already closed")),
        }
    }
    /// The second reader ended early: its error (the same input read here fails here first, so this is
    /// rarely reached).
    fn second_stopped(&mut self) -> Fail {
        match self.second.take().map(|s| s.thread.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(_)) => self.fail("the second reader panicked"),
            _ => self.fail("the second reader stopped"),
        }
    }

    /// The writer thread ended early (a write failed): its error.
    fn stopped(&mut self) -> Fail {
        match std::mem::replace(&mut self.back, Back::Gone) {
            Back::Thread(b) => match b.join() {
                Err(e) => self.fail(e),
                Ok(_) => self.fail("writer thread stopped"),
            },
            _ => self.fail("writer thread stopped"),
        }
    }
    pub fn finish(mut self) -> Result<i64, Fail> {
        self.flush()?;
        if let Some(s) = self.second.take() {
            // its last row group was appended by the flush above
            s.thread.join().map_err(|_| self.fail("the second reader panicked"))??;
        }
        let (writer, spent) = match std::mem::replace(&mut self.back, Back::Gone) {
            Back::ToFirst(..) => return Ok(self.rows),
            Back::Here(w, spent) => (w, spent),
            Back::Thread(b) => b.join().map_err(|e| self.fail(e))?,
            Back::Gone => return Err(self.fail("writer already closed")),
        };
        if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
            eprintln!("blkscope-native: {:.3} s writing {} rows", spent.as_secs_f64(), self.rows);
        }
        writer.finish().map_err(|e| self.fail(e))?;
        Ok(self.rows)
    }
}

impl Behind {
    fn start(mut writer: EventsWriter) -> Behind {
        let (full, full_rx) = mpsc::sync_channel::<Full>(1);
        let (empty_tx, empty) = mpsc::channel::<Events>();
        let thread = std::thread::Builder::new()
            .name("parquet-writer".into())
            .spawn(move || {
                let mut spent = Duration::ZERO;
                for Full { mut ev, own, part } in full_rx {
                    let t = thread_cpu();
                    writer.write_cols(&ev, 0..own)?;
                    if let Some(p) = part {
                        writer.append(p)?;
                    }
                    ev.clear();
                    spent += thread_cpu() - t;
                    let _ = empty_tx.send(ev); // the decoder may be gone (finishing): then dropped here
                }
                Ok((writer, spent))
            })
            .expect("spawn the writer thread");
        let help = Help {
            writer: EventsWriter::memory(),
            spent: std::env::var_os("BLKSCOPE_NATIVE_TIMING").map(|_| (Duration::ZERO, 0)),
            forced: (std::env::var("BLKSCOPE_NATIVE_HELP").as_deref() == Ok("1")).then_some(0),
        };
        Behind { full, empty, spares: 0, thread, help }
    }
    /// Close the queue and wait for the thread to write what it holds.
    fn join(self) -> Written {
        drop(self.full);
        if let Some((spent, chunks)) = self.help.spent {
            eprintln!("blkscope-native: {:.3} s encoding {chunks} column chunks in the decoder", spent.as_secs_f64());
        }
        match self.thread.join() {
            Ok(r) => r,
            Err(_) => Err(std::io::Error::other("writer thread panicked")),
        }
    }
}
