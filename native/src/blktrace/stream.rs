//! One blktrace file read window by window: records located (magic and version checked per record,
//! resynchronising past garbage), notify records turned into process names, events handed out up to a
//! time horizon straight into the events columns.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::sync::mpsc;
use std::path::{Path, PathBuf};

use memchr::memmem;
use serde_json::{json, Value};

use super::codes::*;
use super::layout::{with_layout, Layout};
use super::names::{Names, NONE};
use crate::input::{self, Progress};
use crate::report::{Fail, Report};
use crate::events::Spare;
use crate::sink::Sink;

/// Record layout of one file: version 7 (48-byte header) or 8 (64), byte order from its first magic.
#[derive(Clone, Copy)]
pub struct Fmt {
    pub version: u32,
    pub big: bool,
}

impl Fmt {
    pub fn detect(head: &[u8]) -> Option<Fmt> {
        if head.len() < 4 {
            return None;
        }
        let b: [u8; 4] = head[..4].try_into().unwrap();
        for big in [false, true] {
            let m = if big { u32::from_be_bytes(b) } else { u32::from_le_bytes(b) };
            let v = m & 0xFF;
            if m & 0xFFFF_FF00 == MAGIC && (v == 7 || v == 8) {
                return Some(Fmt { version: v, big });
            }
        }
        None
    }
}

const CHUNK: usize = 4096; // records per column pass: ~200 KB of headers, cache-resident

const NO_KEY: (u32, u32) = (u32::MAX, u32::MAX);

/// Room kept in front of each read-ahead window for the record cut at the end of the last one (a record
/// is at most a 64-byte header and a 65,535-byte payload).
const HEAD: usize = 1 << 17;

/// Where a stream's bytes come from.
enum Src {
    /// read() on this thread, into the stream's buffer
    Here(Box<dyn Read + Send>),
    /// a thread reading one window ahead
    Ahead(Ahead),
    /// the end of the input was read
    Done,
}

/// A read-ahead thread: buffers go to it empty and come back holding a window at buf[HEAD..HEAD + got]
/// (got < window: the end of the input; the thread then stops). On two cores the read() copies and any
/// decompression run beside the decoder (sink.rs has the writer thread).
struct Ahead {
    empty: mpsc::Sender<Vec<u8>>,
    full: mpsc::Receiver<Result<(Vec<u8>, usize), Fail>>,
}

impl Ahead {
    fn start(mut reader: Box<dyn Read + Send>, path: &Path, window: usize) -> Ahead {
        let (empty, empty_rx) = mpsc::channel::<Vec<u8>>();
        let (full_tx, full) = mpsc::channel();
        let path = path.to_owned();
        std::thread::Builder::new()
            .name("blktrace-read".into())
            .spawn(move || {
                for mut buf in empty_rx {
                    buf.resize(HEAD + window, 0);
                    let r = input::fill(reader.as_mut(), &mut buf[HEAD..], &path);
                    let end = !matches!(r, Ok(got) if got == window);
                    if full_tx.send(r.map(|got| (buf, got))).is_err() || end {
                        break;
                    }
                }
            })
            .expect("spawn a read-ahead thread");
        let _ = empty.send(Vec::new());
        Ahead { empty, full }
    }

    fn next(&mut self, path: &Path) -> Result<(Vec<u8>, usize), Fail> {
        self.full.recv().map_err(|_| Fail::new(path, None, "read-ahead thread stopped before the end of the input"))?
    }

    /// Hand back a buffer for the window after the one just received.
    fn refill(&mut self, buf: Vec<u8>) {
        let _ = self.empty.send(buf);
    }
}


/// Tables shared by all streams: category -> rwbs key; by action code (and MSG): not known to blkparse,
/// has a sector (not `no_sector`: a lookup instead of four compares per event). Fixed sizes, indexed by
/// a 16-bit category and a 9-bit code: lookups without a bounds check.
pub struct Tables {
    pub cat_key: Box<[u8; 1 << 16]>,
    pub unknown: [bool; CODES],
    pub sector: [bool; CODES],
}

/// Table size for action codes and MSG (a code is < 257).
pub const CODES: usize = 512;

pub struct Stream {
    pub path: PathBuf,
    pub name_cpu: Option<u32>,
    src: Src,
    started: bool,
    buf: Vec<u8>,
    start: usize, // the window's data is buf[start..n]; base is the file offset of buf[start]
    n: usize,
    base: u64,
    window: usize,
    fmt: Fmt,
    pub done: bool,
    consumed: usize,
    // events of the current window (notify records removed, messages kept)
    offs: Vec<usize>,
    codes: Vec<u16>,
    times: Vec<u64>,
    sorted: bool,
    at: usize,
    pub first_time: Option<u64>,
    pub before_origin: u64,
    n_rec: u64,
    n_ev: u64,
    other_cpu: u64,
    devices: BTreeSet<u32>,
    last_seq: HashMap<(u32, u32), u32>,
    cur: ((u32, u32), u32), // the (device, cpu) of the last record and its sequence number
    pub gaps: BTreeMap<(u32, u32), (i64, i64)>,
}

impl Stream {
    /// `ahead`: a thread reads (and decompresses) the next window while this one is decoded.
    pub fn open(path: &Path, name_cpu: Option<u32>, window: usize, ahead: bool) -> Result<Stream, Fail> {
        let mut s = Stream::new(path, name_cpu, window);
        let reader: Box<dyn Read + Send> = match crate::part::get().range {
            // a part of one big file: bytes [a, b), a at a record start (src/blkscope/parts.py finds it)
            Some((a, b)) => {
                use std::io::{Seek, SeekFrom};
                if input::is_compressed(path)? {
                    return Err(Fail::new(path, None, "a byte range of a compressed file cannot be read: decompress it first"));
                }
                let mut f = std::fs::File::open(path).map_err(|e| Fail::io(path, e))?;
                f.seek(SeekFrom::Start(a)).map_err(|e| Fail::io(path, e))?;
                s.base = a;
                Box::new(f.take(b.saturating_sub(a)))
            }
            None => input::open(path)?,
        };
        if ahead {
            s.src = Src::Ahead(Ahead::start(reader, path, window));
        } else {
            s.src = Src::Here(reader);
            s.buf = vec![0; window + (1 << 16)];
        }
        Ok(s)
    }

    fn new(path: &Path, name_cpu: Option<u32>, window: usize) -> Stream {
        Stream {
            path: path.to_owned(),
            name_cpu,
            src: Src::Done,
            started: false,
            buf: Vec::new(),
            start: 0,
            n: 0,
            base: 0,
            window,
            fmt: Fmt { version: 7, big: false },
            done: false,
            consumed: 0,
            offs: Vec::new(),
            codes: Vec::new(),
            times: Vec::new(),
            sorted: true,
            at: 0,
            first_time: None,
            before_origin: 0,
            n_rec: 0,
            n_ev: 0,
            other_cpu: 0,
            devices: BTreeSet::new(),
            last_seq: HashMap::new(),
            cur: (NO_KEY, 0),
            gaps: BTreeMap::new(),
        }
    }

    pub fn empty(&self) -> bool {
        self.at >= self.offs.len()
    }

    pub fn last_time(&self) -> u64 {
        let t = &self.times[self.at..];
        if self.sorted { *t.last().unwrap() } else { *t.iter().max().unwrap() }
    }

    /// Decode the next window (or mark the stream done).
    pub fn fill(&mut self, names: &mut Names, sink: &mut Sink, rep: &mut Report, t: &Tables, bar: &mut Progress)
        -> Result<(), Fail> {
        let first = !self.started;
        self.started = true;
        // the cut record of the last window goes in front of the next window's bytes
        self.base += (self.consumed - self.start) as u64;
        let got = match &mut self.src {
            Src::Here(r) => {
                self.buf.copy_within(self.consumed..self.n, 0);
                self.n -= self.consumed;
                self.start = 0;
                if self.buf.len() < self.n + self.window {
                    self.buf.resize(self.n + self.window, 0);
                }
                let got = input::fill(r.as_mut(), &mut self.buf[self.n..self.n + self.window], &self.path)?;
                self.n += got;
                got
            }
            Src::Ahead(a) => {
                let (mut next, got) = a.next(&self.path)?;
                let carry = &self.buf[self.consumed..self.n];
                if carry.len() <= HEAD {
                    next[HEAD - carry.len()..HEAD].copy_from_slice(carry);
                    self.start = HEAD - carry.len();
                    self.n = HEAD + got;
                } else {
                    // a carry longer than any record (cannot happen: walk leaves at most one cut record)
                    let mut v = carry.to_vec();
                    v.extend_from_slice(&next[HEAD..HEAD + got]);
                    (self.start, self.n) = (0, v.len());
                    next = v;
                }
                let old = std::mem::replace(&mut self.buf, next);
                if got == self.window {
                    a.refill(old);
                }
                got
            }
            Src::Done => {
                self.buf.copy_within(self.consumed..self.n, self.start);
                self.n = self.start + self.n - self.consumed;
                0
            }
        };
        self.consumed = self.start;
        if got < self.window {
            self.src = Src::Done;
        }
        let last = got < self.window;
        self.offs.clear();
        self.codes.clear();
        self.times.clear();
        self.at = 0;
        if first {
            if self.n == self.start {
                return Err(Fail::new(&self.path, None, "empty file: expected blktrace binary records"));
            }
            let data = &self.buf[self.start..self.n];
            self.fmt = Fmt::detect(data).ok_or_else(|| {
                let h: String = data[..data.len().min(4)].iter().map(|b| format!("{b:02x}")).collect();
                Fail::offset(&self.path, self.base, format!("not a blktrace file (magic {h}, expected 0x656174 with version 7 or 8)"))
            })?;
            let info = files_entry(rep, &self.path);
            info.insert("version".into(), json!(self.fmt.version));
            info.insert("byte_order".into(), json!(if self.fmt.big { "big" } else { "little" }));
        }
        if self.n == self.start {
            self.done = true;
            return Ok(());
        }
        self.walk_decode(last, names, sink, rep, t);
        bar.add((if last { self.n } else { self.consumed } - self.start) as u64);
        self.done = last;
        Ok(())
    }

    /// Offsets of the complete records in buf[..n]; sets `consumed` (where the next window starts).
    #[cfg(test)]
    fn walk(&mut self, last: bool, rep: &mut Report) -> Vec<usize> {
        let mut offs = Vec::new();
        self.consumed = with_layout!(self.fmt, l => walk_records(l, self.fmt, &self.buf[..self.n], self.start, self.base,
                                                                 &self.path, last, rep, |o| offs.push(o)));
        offs
    }

    /// Locate the window's records and decode each as it is found, while its bytes are in L1 (a walk
    /// writing the offsets and a decode pass reading them back were two passes over the window).
    fn walk_decode(&mut self, last: bool, names: &mut Names, sink: &mut Sink, rep: &mut Report, t: &Tables) {
        with_layout!(self.fmt, l => self.walk_decode_as(l, last, names, sink, rep, t))
    }

    fn walk_decode_as<L: Layout>(&mut self, f: L, last: bool, names: &mut Names, sink: &mut Sink, rep: &mut Report,
                                 t: &Tables) {
        let buf = &self.buf[..self.n];
        // every record is at least a header long: room for all the events of the window, written below
        // without a capacity check per push
        let cap = (self.n - self.start) / f.hdr() + 1;
        self.offs.reserve(cap);
        self.codes.reserve(cap);
        self.times.reserve(cap);
        let (offs, codes, times) = (self.offs.as_mut_ptr(), self.codes.as_mut_ptr(), self.times.as_mut_ptr());
        let mut k = 0usize; // events so far
        let mut recs = 0u64;
        let (mut sorted, mut prev_time) = (true, 0u64);
        let mut unknown: BTreeMap<usize, i64> = BTreeMap::new();
        // the per-record state in locals (registers), written back after the window: through &mut fields of
        // the stream each record loaded and stored them again (the raw stores below may alias them)
        let (name_cpu, mut other_cpu, mut cur) = (self.name_cpu, 0u64, self.cur);
        let (last_seq, gaps, devices) = (&mut self.last_seq, &mut self.gaps, &mut self.devices);
        self.consumed = walk_records(f, self.fmt, buf, self.start, self.base, &self.path, last, rep, |o| {
            recs += 1;
            let r = f.rec(buf, o);
            let cat = ((r.action >> 16) & 0xFFFF) as u32;
            let mut code = (r.action & 0xFF) as usize;
            if cat & TC_NOTIFY != 0 {
                let kind = r.action & 0xFF;
                let skip = if r.action & CGROUP_BIT != 0 { 8 } else { 0 };
                let data = &buf[(o + f.hdr() + skip).min(o + f.hdr() + r.pdu_len as usize)..o + f.hdr() + r.pdu_len as usize];
                match kind {
                    NOTIFY_PROCESS => {
                        let end = memchr::memchr(0, data).unwrap_or(data.len());
                        names.add(r.pid, r.cpu, &String::from_utf8_lossy(&data[..end]), &mut sink.ev.process.dict);
                        return;
                    }
                    NOTIFY_TIMESTAMP => {
                        if names.wall.is_none() && data.len() >= 8 {
                            names.wall = Some((f.u32(data, 0), f.u32(data, 4), r.time));
                        }
                        return;
                    }
                    NOTIFY_MESSAGE => code = MSG,
                    _ => return,
                }
            }
            if t.unknown[code & (CODES - 1)] {
                *unknown.entry(code).or_insert(0) += 1;
            }
            if let Some(c) = name_cpu {
                other_cpu += (r.cpu != c) as u64;
            }
            if code != MSG {
                let key = (r.device, r.cpu);
                // the usual per-CPU file has one key: skip the map while it stays the same
                let prev = if cur.0 == key {
                    let p = cur.1;
                    cur.1 = r.seq;
                    Some(p)
                } else {
                    if cur.0 != NO_KEY {
                        last_seq.insert(cur.0, cur.1);
                    }
                    cur = (key, r.seq);
                    last_seq.get(&key).copied()
                };
                if let Some(prev) = prev {
                    let d = r.seq as i64 - prev as i64;
                    if d > 1 || d <= 0 {
                        let g = gaps.entry(key).or_insert((0, 0));
                        if d > 1 {
                            g.0 += d - 1;
                        } else {
                            g.1 += 1;
                        }
                    }
                } else {
                    devices.insert(r.device);
                }
                if cur.0 == key && prev.is_none() {
                    last_seq.insert(key, r.seq);
                }
            }
            // (times are unsigned: the first event of the window compares with 0 and keeps `sorted`)
            sorted &= r.time >= prev_time;
            prev_time = r.time;
            // SAFETY: k < cap, the room reserved above (one event per record at most, each record at least
            // a header long, all of them inside buf[start..n])
            unsafe {
                offs.add(k).write(o);
                codes.add(k).write(code as u16);
                times.add(k).write(r.time);
            }
            k += 1;
        });
        self.other_cpu += other_cpu;
        self.cur = cur;
        // SAFETY: the first k slots of each were written above (the vectors were cleared in `fill`)
        unsafe {
            self.offs.set_len(k);
            self.codes.set_len(k);
            self.times.set_len(k);
        }
        if k > 0 {
            self.sorted = sorted;
        }
        self.n_rec += recs;
        if !unknown.is_empty() {
            // 257 strings, made only when needed (they were made for every window, ~500 times on the bench set)
            let names_tbl = super::codes::action_names();
            for (c, k) in unknown {
                rep.count_unknown(&format!("action {}", names_tbl[c]), k);
            }
        }
        if !self.times.is_empty() && self.first_time.is_none() {
            self.first_time = self.times.iter().min().copied();
        }
    }

    /// Hand out the pending events with time <= horizon (all when None or when the window is unsorted).
    pub fn take(&mut self, horizon: Option<u64>, names: &mut Names, origin: u64, sink: &mut Sink, t: &Tables)
        -> Result<(), Fail> {
        with_layout!(self.fmt, l => self.take_as(l, horizon, names, origin, sink, t))
    }

    fn take_as<L: Layout>(&mut self, f: L, horizon: Option<u64>, names: &mut Names, origin: u64, sink: &mut Sink,
                          t: &Tables) -> Result<(), Fail> {
        let total = self.offs.len();
        let end = match horizon {
            Some(h) if self.sorted => self.at + self.times[self.at..].partition_point(|&x| x <= h),
            _ => total,
        };
        if end <= self.at {
            return Ok(());
        }
        if !self.sorted || self.times[self.at] < origin {
            self.before_origin += self.times[self.at..end].iter().filter(|&&x| x < origin).count() as u64;
        }
        let buf = &self.buf[..self.n];
        let cpu0 = f.rec(buf, self.offs[self.at]).cpu;
        names.build(cpu0);
        let names = &*names;
        let tbl = names.table(cpu0);
        let mut i = self.at;
        while i < end {
            // column by column over a cache-sized chunk of records, never past the row group
            let j = end.min(i + CHUNK).min(i + sink.room());
            let (idx, codes) = (&self.offs[i..j], &self.codes[i..j]);
            let ev = &mut sink.ev;
            let row0 = ev.row();
            let n = idx.len();
            let mut has_sector = vec![false; n];
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
                for k in 0..n {
                    let (o, c) = (idx[k], codes[k] as usize);
                    let (d, cp, p) = (f.u32(buf, o + f.dev_at()), f.u32(buf, o + f.cpu_at()), f.u32(buf, o + f.pid_at()));
                    let (cat, bytes) = (f.cat(buf, o), f.u32(buf, o + 24));
                    dmaj[k].write(d >> 20);
                    dmin[k].write(d & 0xFFFFF);
                    cpu[k].write(cp);
                    seq[k].write(f.u32(buf, o + 4) as i64);
                    time[k].write(f.u64(buf, o + 8).wrapping_sub(origin) as i64);
                    pid[k].write(p);
                    act[k].write(c as u32);
                    rwbs[k].write((t.cat_key[cat as u16 as usize] | (((bytes > 0) as u8) << 3)) as u32);
                    sector[k].write(f.u64(buf, o + 16) as i64);
                    nsec[k].write((bytes >> 9) as i64);
                    has_sector[k] = t.sector[c & (CODES - 1)] & (cat & TC_PC == 0);
                    err[k].write(f.u16(buf, o + f.err_at()) as i32);
                    proc_[k].write(match tbl {
                        Some(tb) if cp == cpu0 => tb.get(p as usize).copied().unwrap_or(NONE),
                        _ => names.lookup(p, cp),
                    });
                }
            }
            // SAFETY: the loop above wrote the n reserved slots of each of these columns
            unsafe {
                for v in [&mut ev.dev_major.v, &mut ev.dev_minor.v, &mut ev.cpu.v, &mut ev.pid.v, &mut ev.action.keys.v,
                          &mut ev.rwbs.keys.v, &mut ev.process.keys.v] {
                    v.set_len(v.len() + n);
                }
                for v in [&mut ev.seq.v, &mut ev.time_ns.v, &mut ev.sector.v, &mut ev.nsectors.v] {
                    v.set_len(v.len() + n);
                }
                ev.error.v.set_len(ev.error.v.len() + n);
            }
            for (k, (&o, &c)) in idx.iter().zip(codes).enumerate() {
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
            ev.dev_major.extend_all_valid(n);
            ev.dev_minor.extend_all_valid(n);
            ev.cpu.extend_all_valid(n);
            ev.pid.extend_all_valid(n);
            ev.seq.extend_all_valid(n);
            ev.time_ns.extend_all_valid(n);
            ev.action.keys.extend_all_valid(n);
            ev.rwbs.keys.extend_all_valid(n);
            ev.error.extend_all_valid(n);
            sink.end_row()?;
            i = j;
        }
        self.n_ev += (end - self.at) as u64;
        self.at = end;
        Ok(())
    }

    pub fn finish(&self, rep: &mut Report) {
        let devs: Vec<String> = self.devices.iter().map(|d| format!("{},{}", d >> 20, d & 0xFFFFF)).collect();
        let ndev = devs.len();
        let info = files_entry(rep, &self.path);
        info.insert("records".into(), json!(self.n_rec));
        info.insert("events".into(), json!(self.n_ev));
        info.insert("devices".into(), json!(devs));
        if self.other_cpu > 0 {
            info.insert("records_from_other_cpus".into(), json!(self.other_cpu));
            rep.warn(format!("{}: {} records are from another CPU than the file name says ({}); kept",
                             self.path.display(), self.other_cpu, self.name_cpu.unwrap()));
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

/// Walk the complete records of `buf[start..]` (magic and version checked per record, resynchronising past
/// garbage with a warning), calling `rec` with each one's offset; returns where the next window starts.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn walk_records<L: Layout>(f: L, fm: Fmt, buf: &[u8], start: usize, base: u64, path: &Path, last: bool,
                           rep: &mut Report, mut rec: impl FnMut(usize)) -> usize {
    let n = buf.len();
    let magic = MAGIC | fm.version;
    let pat = if fm.big { magic.to_be_bytes() } else { magic.to_le_bytes() };
    let hdr = f.hdr();
    let mut pos = start;
    while pos + 4 <= n {
        if buf[pos..pos + 4] == pat {
            if pos + hdr > n {
                break;
            }
            let end = pos + hdr + f.pdu_len(buf, pos) as usize;
            if end > n {
                break;
            }
            rec(pos);
            pos = end;
            continue;
        }
        // not a record here: skip to the next magic word at any byte
        let to = match memmem::find(&buf[pos + 1..], &pat) {
            Some(k) => pos + 1 + k,
            None if last => n,
            None => n.saturating_sub(3).max(pos), // a magic may straddle the cut
        };
        if to > pos {
            let off = base + (pos - start) as u64;
            rep.trace_list("resyncs").push(json!({"file": path.display().to_string(), "byte_offset": off,
                                                 "bytes_skipped": to - pos}));
            rep.warn(format!("{}: byte offset {off}: no valid record (bad magic or version); skipped {} bytes to \
                              the next record", path.display(), to - pos));
        }
        if to == pos {
            break;
        }
        pos = to;
    }
    if last && pos < n {
        let off = base + (pos - start) as u64;
        rep.warn(format!("{}: byte offset {off}: truncated last record ({} bytes) ignored", path.display(), n - pos));
        rep.trace_list("truncated").push(json!({"file": path.display().to_string(), "byte_offset": off}));
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A v7 little-endian record: header fields that matter to the walk, then `pdu` payload bytes.
    fn rec(seq: u32, pdu: &[u8]) -> Vec<u8> {
        let mut r = Vec::with_capacity(48 + pdu.len());
        r.extend_from_slice(&(MAGIC | 7).to_le_bytes());
        r.extend_from_slice(&seq.to_le_bytes());
        r.extend_from_slice(&(1000 + seq as u64).to_le_bytes()); // time
        r.extend_from_slice(&[0; 8 + 4]); // sector, bytes
        r.extend_from_slice(&(1u32 | (1 << 16)).to_le_bytes()); // action Q, READ
        r.extend_from_slice(&[0; 4 * 3 + 2]); // pid, device, cpu, error
        r.extend_from_slice(&(pdu.len() as u16).to_le_bytes());
        r.extend_from_slice(pdu);
        r
    }

    fn walk(data: &[u8], last: bool) -> (Vec<usize>, usize, Report) {
        let mut s = Stream::new(Path::new("t.blktrace.0"), Some(0), 1 << 16);
        s.buf = data.to_vec();
        s.n = data.len();
        s.fmt = Fmt { version: 7, big: false };
        let mut rep = Report::default();
        let offs = s.walk(last, &mut rep);
        (offs, s.consumed, rep)
    }

    #[test]
    fn records_with_payloads_and_a_magic_inside_one_are_walked_in_order() {
        // the payload of record 1 holds a magic word: a look-alike, not a record
        let fake = (MAGIC | 7).to_le_bytes();
        let parts = [rec(0, &[]), rec(1, &[fake.as_slice(), &[9; 13]].concat()), rec(2, &[1; 3]), rec(3, &[])];
        let data = parts.concat();
        let (offs, consumed, rep) = walk(&data, true);
        assert_eq!(offs, vec![0, 48, 48 + 65, 48 + 65 + 51]);
        assert_eq!(consumed, data.len());
        assert!(rep.warnings.is_empty());
    }

    #[test]
    fn garbage_between_records_is_skipped_and_reported_with_its_offset() {
        let data = [rec(0, &[]), b"garbage!!".to_vec(), rec(1, &[7; 8])].concat();
        let (offs, _, mut rep) = walk(&data, true);
        assert_eq!(offs, vec![0, 57]);
        assert_eq!(rep.trace_list("resyncs").clone(),
                   vec![json!({"file": "t.blktrace.0", "byte_offset": 48, "bytes_skipped": 9})]);
        assert!(rep.warnings[0].contains("byte offset 48"));
    }

    #[test]
    fn a_record_cut_at_the_window_end_waits_for_the_next_window_or_is_reported_truncated() {
        let data = [rec(0, &[]), rec(1, &[5; 16])].concat();
        let cut = &data[..48 + 30];
        let (offs, consumed, rep) = walk(cut, false);
        assert_eq!((offs, consumed), (vec![0], 48)); // carried over, no warning yet
        assert!(rep.warnings.is_empty());
        let (offs, consumed, rep) = walk(cut, true);
        assert_eq!((offs, consumed), (vec![0], 48));
        assert!(rep.warnings[0].contains("byte offset 48: truncated last record (30 bytes)"));
    }

    #[test]
    fn a_magic_straddling_the_window_end_is_not_skipped() {
        // garbage, then a record whose magic is cut by the window end: only the garbage is skipped
        let data = [b"xx".to_vec(), rec(0, &[])].concat();
        let (offs, consumed, rep) = walk(&data[..4], false);
        assert!(offs.is_empty());
        assert_eq!(consumed, 1); // the last 3 bytes may start a magic
        assert_eq!(rep.warnings.len(), 1);
    }
}
