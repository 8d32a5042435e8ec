//! One blktrace file's decoded windows (decode.rs) handed out up to a time horizon straight into the events
//! columns; with a second CPU each file is read and decoded on a thread of its own, a window ahead.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};

use serde_json::{json, Value};

use super::codes::*;
use super::decode::{prefetch, FileState, Input, Reader, Tables, Window, CODES};
use super::gather8;
use super::layout::{with_layout, Layout};
use super::names::{self, Names, NONE};
use crate::events::{Cols, Spare};
use crate::input::{self, Progress};
use crate::mapped::Map;
use crate::report::{Fail, Report};
use crate::sink::Sink;

const CHUNK: usize = 4096; // records per column pass: ~200 KB of headers, cache-resident
/// Bytes ahead of the column pass that it asks for in L1: by its turn the other file's window has been walked
/// and its records have mostly left L2 (one thread 0.446 -> 0.425 s on the bench set at 2 KB, bench/RESULTS.md,
/// 2026-12-01 twelfth session).
pub(super) const COLS_AHEAD: usize = 2048;
const ALL: u8 = 0;
pub(super) const FIRST: u8 = 1;
pub(super) const SECOND: u8 = 2;

/// Where a stream's windows come from.
enum Src {
    /// read and decoded on this thread
    Here(Box<Reader>),
    /// a thread reading one window ahead, and decoding it too unless the Reader is here (then it decodes
    /// each window on this thread)
    Ahead(Ahead, Option<Box<Reader>>),
    /// the last window was handed out
    Done,
}

/// A read-ahead thread: windows go to it to be reused and come back read, and decoded when it has the
/// Reader (the last one with `last` set, or got < window when only read; the thread then stops). On two
/// cores the read() copies, any decompression and the walk and decode run beside the column pass (sink.rs
/// has the writer thread).
struct Ahead {
    empty: mpsc::Sender<Window>,
    full: mpsc::Receiver<Result<Window, Fail>>,
}

impl Ahead {
    fn start(mut job: Job) -> Ahead {
        let (empty, empty_rx) = mpsc::channel::<Window>();
        let (full_tx, full) = mpsc::channel();
        std::thread::Builder::new()
            .name("blktrace-read".into())
            .spawn(move || {
                for mut w in empty_rx {
                    let r = match &mut job {
                        Job::Decode(reader) => reader.next(&mut w).map(|()| w.last),
                        Job::Read(input, path, window, read) => {
                            let r = input.read_window(path, *read, *window, &mut w);
                            *read += w.got as u64;
                            r.map(|got| got < *window)
                        }
                    };
                    let end = !matches!(r, Ok(false));
                    if full_tx.send(r.map(|_| w)).is_err() || end {
                        break;
                    }
                }
            })
            .expect("spawn a read-ahead thread");
        let _ = empty.send(Window::default());
        Ahead { empty, full }
    }

    fn next(&mut self, path: &Path) -> Result<Window, Fail> {
        self.full.recv().map_err(|_| Fail::new(path, None, "read-ahead thread stopped before the end of the input"))?
    }

    /// Hand back a window's buffers for the window after the one just received.
    fn refill(&mut self, w: Window) {
        let _ = self.empty.send(w);
    }
}

/// What a read-ahead thread does with each window.
enum Job {
    Decode(Reader),
    Read(Input, PathBuf, usize, u64), // the input, its path, the window, the bytes read so far
}

pub struct Stream {
    pub path: PathBuf,
    pub name_cpu: Option<u32>,
    src: Src,
    win: Window, // the window being handed out
    pub done: bool,
    at: usize,
    pub first_time: Option<u64>,
    pub before_origin: u64,
    n_ev: u64,
    pub state: FileState,
}

impl Stream {
    /// `ahead`: a thread reads (and decompresses) the next window while this one is handed out, and
    /// decodes it too when `decode_ahead`.
    /// `cols`: the sink's; a split read's second thread skips the report's counts (Reader::counts). Its two
    /// threads map the file each, as one thread does: less CPU than read()'s copy (bench/RESULTS.md, eleventh session).
    pub fn open(path: &Path, name_cpu: Option<u32>, window: usize, ahead: bool, decode_ahead: bool, cols: Cols,
                t: &Arc<Tables>) -> Result<Stream, Fail> {
        let range = crate::part::get().range;
        // a part of one big file: bytes [a, b), a at a record start (src/blkscope/parts.py finds it)
        let (a, b) = range.unwrap_or((0, u64::MAX));
        let map = Map::open(path, a, b)?;
        let input = match (map, range) {
            // the mapping's first bytes tell a compressed file (read() through its decompressor below)
            (Some(m), _) if !input::compressed(m.head()) => Input::Map(Arc::new(m), 0),
            (_, Some(_)) => {
                use std::io::{Seek, SeekFrom};
                if input::is_compressed(path)? {
                    return Err(Fail::new(path, None, "a byte range of a compressed file cannot be read: decompress it first"));
                }
                let mut f = std::fs::File::open(path).map_err(|e| Fail::io(path, e))?;
                f.seek(SeekFrom::Start(a)).map_err(|e| Fail::io(path, e))?;
                Input::Read(Box::new(f.take(b.saturating_sub(a))))
            }
            (_, None) => Input::Read(input::open(path)?),
        };
        let base = range.map_or(0, |r| r.0);
        let mut reader = Reader::new(path, input, base, window, name_cpu, t.clone());
        reader.counts = cols != Cols::Second;
        let src = match (ahead, decode_ahead) {
            (false, _) => Src::Here(Box::new(reader)),
            (true, true) => Src::Ahead(Ahead::start(Job::Decode(reader)), None),
            (true, false) => {
                let job = Job::Read(reader.take_input(), path.to_owned(), window, base);
                Src::Ahead(Ahead::start(job), Some(Box::new(reader)))
            }
        };
        Ok(Stream { path: path.to_owned(), name_cpu, src, win: Window::default(), done: false, at: 0,
                    first_time: None, before_origin: 0, n_ev: 0, state: FileState::default() })
    }

    pub fn empty(&self) -> bool {
        self.at >= self.win.offs.len()
    }

    pub fn last_time(&self) -> u64 {
        let t = &self.win.times[self.at..];
        if self.win.sorted { *t.last().unwrap() } else { *t.iter().max().unwrap() }
    }

    /// Take the next decoded window (or mark the stream done) and replay what its decode found: process
    /// names interned, the wall clock, warnings and unknown actions, in record order.
    pub fn fill(&mut self, names: &mut Names, sink: &mut Sink, rep: &mut Report, bar: &mut Progress)
        -> Result<(), Fail> {
        match &mut self.src {
            Src::Here(r) => r.next(&mut self.win)?,
            Src::Ahead(a, here) => {
                let mut next = a.next(&self.path)?;
                if let Some(r) = here {
                    r.decode_window(&mut next)?;
                }
                let old = std::mem::replace(&mut self.win, next);
                if !self.win.last {
                    a.refill(old);
                }
            }
            Src::Done => {
                self.done = true;
                return Ok(());
            }
        }
        self.at = 0;
        let w = &mut self.win;
        if w.last {
            self.src = Src::Done;
        }
        if w.first {
            let info = files_entry(rep, &self.path);
            info.insert("version".into(), json!(w.fmt.version));
            info.insert("byte_order".into(), json!(if w.fmt.big { "big" } else { "little" }));
        }
        let mut from = 0;
        for &(pid, cpu, end) in &w.notes.names {
            names.add(pid, cpu, &w.notes.name_bytes[from..end], &mut sink.ev.process.dict);
            from = end;
        }
        if names.wall.is_none() {
            names.wall = w.notes.wall;
        }
        rep.warnings.append(&mut w.rep.warnings);
        for (what, k) in std::mem::take(&mut w.rep.unknown) {
            rep.count_unknown(&what, k);
        }
        for (key, v) in std::mem::take(&mut w.rep.trace) {
            if let Value::Array(items) = v {
                rep.trace_list(&key).extend(items);
            }
        }
        bar.add(w.bytes);
        if let Some(st) = w.state.take() {
            self.state = st;
        }
        if !w.times.is_empty() && self.first_time.is_none() {
            self.first_time = w.times.iter().min().copied();
        }
        self.done = w.last;
        Ok(())
    }

    /// Hand out the pending events with time <= horizon (all when None or when the window is unsorted).
    pub fn take(&mut self, horizon: Option<u64>, names: &mut Names, origin: u64, sink: &mut Sink, t: &Tables)
        -> Result<(), Fail> {
        match sink.cols {
            Cols::All => with_layout!(self.win.fmt, l => self.take_as::<_, ALL>(l, horizon, names, origin, sink, t)),
            Cols::First => with_layout!(self.win.fmt, l => self.take_as::<_, FIRST>(l, horizon, names, origin, sink, t)),
            Cols::Second => with_layout!(self.win.fmt, l => self.take_as::<_, SECOND>(l, horizon, names, origin, sink, t)),
        }
    }

    /// C: the columns filled (ALL, FIRST or SECOND: Cols as a constant, so each loop holds only its stores).
    fn take_as<L: Layout, const C: u8>(&mut self, f: L, horizon: Option<u64>, names: &mut Names, origin: u64, sink: &mut Sink,
                          t: &Tables) -> Result<(), Fail> {
        let total = self.win.offs.len();
        let end = match horizon {
            Some(h) if self.win.sorted => self.at + self.win.times[self.at..].partition_point(|&x| x <= h),
            _ => total,
        };
        if end <= self.at {
            return Ok(());
        }
        if !self.win.sorted || self.win.times[self.at] < origin {
            self.before_origin += self.win.times[self.at..end].iter().filter(|&&x| x < origin).count() as u64;
        }
        let buf = self.win.data();
        let cpu0 = f.rec(buf, self.win.offs[self.at]).cpu;
        let (first, second) = (C != SECOND, C != FIRST);
        if second {
            names.build(cpu0, (end - self.at) as u64);
        }
        let names = &*names;
        let tbl = names.table(cpu0);
        let mut i = self.at;
        while i < end {
            // column by column over a cache-sized chunk of records, never past the row group
            let j = end.min(i + CHUNK).min(i + sink.room());
            let (idx, codes) = (&self.win.offs[i..j], &self.win.codes[i..j]);
            let ev = &mut sink.ev;
            let row0 = ev.row();
            let n = idx.len();
            let mut has_sector = vec![false; if second { n } else { 0 }];
            let (k0, pay0);
            // one pass over the records, each read once into every column (a gather pass per column re-read
            // the chunk's records a dozen times; thin-LTO build 10% less CPU, bench/RESULTS.md session 4)
            {
                let dmaj = ev.dev_major.v.spare(n);
                let dmin = ev.dev_minor.v.spare(n);
                let cpu = ev.cpu.v.spare(n);
                let seq = ev.seq.v.spare(n);
                let time = ev.time_ns.v.spare(n);
                let pid = ev.pid.v.spare(n);
                let act = ev.action.keys.v.spare(n);
                let rwbs = ev.rwbs.keys.v.spare(n);
                let sector = ev.sector.v.spare(n);
                let nsec = ev.nsectors.v.spare(n);
                let err = ev.error.v.spare(n);
                let proc_ = ev.process.keys.v.spare(n);
                // eight records at a time where the CPU has AVX-512 (gather8.rs), and the common payloads of rows
                // before pay0; the scalar loops take the rest
                (k0, pay0) = if !L::BIG && !L::V8 && gather8::enabled() {
                    let times = &self.win.times[i..j];
                    let inp = gather8::In { buf, idx, codes, times, origin, t, names, tbl, cpu0 };
                    let pay = gather8::Pay { row0, remap_major: &mut ev.remap_dev_major, remap_minor: &mut ev.remap_dev_minor,
                        remap_sector: &mut ev.remap_sector, split: &mut ev.split_sector, unplug: &mut ev.unplug_count };
                    let mut out = gather8::Out { dmaj: &mut *dmaj, dmin: &mut *dmin, cpu: &mut *cpu, seq: &mut *seq,
                        time: &mut *time, pid: &mut *pid, act: &mut *act, rwbs: &mut *rwbs, sector: &mut *sector,
                        nsec: &mut *nsec, err: &mut *err, proc_: &mut *proc_, has_sector: &mut has_sector, pay };
                    gather8::columns::<C>(&inp, &mut out)
                } else {
                    (0, 0)
                };
                for k in k0..n {
                    let (o, c) = (idx[k], codes[k] as usize);
                    prefetch(buf, o + COLS_AHEAD);
                    let (cp, p) = (f.u32(buf, o + f.cpu_at()), f.u32(buf, o + f.pid_at()));
                    let (cat, bytes) = (f.cat(buf, o), f.u32(buf, o + 24));
                    time[k].write(f.u64(buf, o + 8).wrapping_sub(origin) as i64); // both: it counts the rows
                    if first {
                        let d = f.u32(buf, o + f.dev_at());
                        dmaj[k].write(d >> 20);
                        dmin[k].write(d & 0xFFFFF);
                        cpu[k].write(cp);
                        seq[k].write(f.u32(buf, o + 4) as i64);
                        pid[k].write(p);
                        act[k].write(c as u32);
                    }
                    if second {
                        rwbs[k].write((t.cat_key[cat as u16 as usize] | (((bytes > 0) as u8) << 3)) as u32);
                        sector[k].write(f.u64(buf, o + 16) as i64);
                        nsec[k].write((bytes >> 9) as i64);
                        has_sector[k] = t.sector[c & (CODES - 1)] & (cat & TC_PC == 0);
                        err[k].write(f.u16(buf, o + f.err_at()) as i32);
                        proc_[k].write(match tbl {
                            Some(tb) if cp == cpu0 => names::key(tb, p),
                            _ => names.lookup(p, cp),
                        });
                    }
                }
            }
            // SAFETY: the loop above wrote the n reserved slots of each of these columns
            unsafe {
                ev.time_ns.v.set_len(ev.time_ns.v.len() + n);
                if first {
                    for v in [&mut ev.dev_major.v, &mut ev.dev_minor.v, &mut ev.cpu.v, &mut ev.pid.v, &mut ev.action.keys.v] {
                        v.set_len(v.len() + n);
                    }
                    ev.seq.v.set_len(ev.seq.v.len() + n);
                }
                if second {
                    for v in [&mut ev.rwbs.keys.v, &mut ev.process.keys.v] {
                        v.set_len(v.len() + n);
                    }
                    for v in [&mut ev.sector.v, &mut ev.nsectors.v] {
                        v.set_len(v.len() + n);
                    }
                    ev.error.v.set_len(ev.error.v.len() + n);
                }
            }
            ev.time_ns.extend_all_valid(n);
            if first {
                ev.dev_major.extend_all_valid(n);
                ev.dev_minor.extend_all_valid(n);
                ev.cpu.extend_all_valid(n);
                ev.pid.extend_all_valid(n);
                ev.seq.extend_all_valid(n);
                ev.action.keys.extend_all_valid(n);
            }
            if second {
                for (k, (&o, &c)) in idx.iter().zip(codes).enumerate().skip(pay0) {
                    let code = c as usize;
                    let action = f.action(buf, o);
                    let pc = (action >> 16) as u32 & TC_PC != 0;
                    let pdu = f.pdu_len(buf, o);
                    if pdu > 0 || pc || code == MSG {
                        payload(ev, row0 + k, buf, o, action, pdu, code, pc, f);
                    }
                }
                ev.sector.extend_valid(&has_sector);
                ev.nsectors.extend_valid(&has_sector);
                let named: Vec<bool> = ev.process.keys.v[row0..].iter().map(|&k| k != NONE).collect();
                ev.process.keys.extend_valid(&named);
                ev.error.extend_all_valid(n);
                ev.rwbs.keys.extend_all_valid(n);
            }
            sink.end_row()?;
            i = j;
        }
        self.n_ev += (end - self.at) as u64;
        self.at = end;
        Ok(())
    }

    pub fn finish(&self, rep: &mut Report) {
        let devs: Vec<String> = self.state.devices.iter().map(|d| format!("{},{}", d >> 20, d & 0xFFFFF)).collect();
        let ndev = devs.len();
        let info = files_entry(rep, &self.path);
        info.insert("records".into(), json!(self.state.n_rec));
        info.insert("events".into(), json!(self.n_ev));
        info.insert("devices".into(), json!(devs));
        if self.state.other_cpu > 0 {
            info.insert("records_from_other_cpus".into(), json!(self.state.other_cpu));
            rep.warn(format!("{}: {} records are from another CPU than the file name says ({}); kept",
                             self.path.display(), self.state.other_cpu, self.name_cpu.unwrap()));
        }
        if ndev > 1 && self.name_cpu.is_some() {
            rep.warn(format!("{}: records from {ndev} devices in one per-device file; kept", self.path.display()));
        }
    }
}

/// Payload fields: cgroup id, remap (A), split sector (X), unplug count (U, UT) — big-endian on every
/// host — and the texts of SCSI commands (hex) and messages.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn payload<L: Layout>(ev: &mut crate::events::Events, row: usize, buf: &[u8], o: usize, action: u64, pdu: u16, code: usize,
                      pc: bool, f: L) {
    // (the header fields it needs, not a whole Rec: that was read at the call for every record with a payload)
    let cg = action & CGROUP_BIT != 0;
    let skip = if cg { 8 } else { 0 };
    let pdu = pdu as usize;
    let avail = pdu as i64 - skip as i64;
    let start = o + f.hdr() + skip;
    let be64 = |at: usize| u64::from_be_bytes(buf[at..at + 8].try_into().unwrap());
    if cg && avail >= 0 {
        ev.cgroup_id.set(row, f.u64(buf, o + f.hdr()));
    }
    if code == A && avail >= 16 {
        let dev = u32::from_be_bytes(buf[start..start + 4].try_into().unwrap());
        ev.remap_dev_major.set(row, dev >> 20);
        ev.remap_dev_minor.set(row, dev & 0xFFFFF);
        ev.remap_sector.set(row, be64(start + 8) as i64);
    }
    if matches!(code, X | U | UT) && avail >= 8 {
        if code == X {
            ev.split_sector.set(row, be64(start) as i64);
        } else {
            ev.unplug_count.set(row, be64(start) as i64);
        }
    }
    if pc && code != MSG {
        ev.pc_bytes.set(row, f.u32(buf, o + 24) as i64);
    }
    if pc || code == MSG {
        let raw = if avail > 0 { &buf[start..o + f.hdr() + pdu] } else { &[][..] };
        if code == MSG {
            let end = raw.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
            ev.message.set(row, &String::from_utf8_lossy(&raw[..end]));
        } else {
            let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
            ev.cdb.set(row, &hex);
        }
    }
}

pub fn files_entry<'a>(rep: &'a mut Report, path: &Path) -> &'a mut serde_json::Map<String, Value> {
    let files = rep.trace.entry("files").or_insert_with(|| json!({})).as_object_mut().unwrap();
    files.entry(path.display().to_string()).or_insert_with(|| json!({})).as_object_mut().unwrap()
}

