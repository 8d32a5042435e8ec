//! One blktrace file read and decoded window by window: records located (magic and version checked per
//! record, resynchronising past garbage), each event's offset, code and time noted, notify records kept.
//! With a second CPU this runs on a read-ahead thread per file (stream.rs), a window ahead of the column
//! pass; what a window tells the decoder thread (process names, the wall clock, warnings, unknown actions)
//! travels with it and is replayed there at the window's turn, so names are interned and messages written
//! in the order the one-thread path gives.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memchr::memmem;
use serde_json::json;

use super::codes::*;
use super::gather8;
use super::layout::{with_layout, Layout, Rec};
use crate::input;
use crate::mapped::Map;
use crate::report::{Fail, Report};

/// Bytes of a mapped input read before they are unmapped at once (mapped.rs).
const RELEASE_BATCH: usize = 32 << 20;

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

/// Tables shared by all streams: category -> rwbs key; by action code (and MSG): not known to blkparse,
/// has a sector (not `no_sector`: a lookup instead of four compares per event). Fixed sizes, indexed by
/// a 16-bit category and a 9-bit code: lookups without a bounds check.
pub struct Tables {
    /// and 3 bytes more, zero: gather8 reads 4 bytes at a category
    pub cat_key: Box<[u8; (1 << 16) + 3]>,
    pub unknown: [bool; CODES],
    pub sector: [bool; CODES],
    /// `unknown` and `sector` as bits (bit c % 64 of word c / 64), for gather8
    pub unknown_bits: [u64; CODES / 64],
    #[cfg_attr(not(target_feature = "avx512f"), allow(dead_code))] // read by gather8's AVX-512 pass only
    pub sector_bits: [u64; CODES / 64],
}

impl Tables {
    pub fn new(cat_key: Vec<u8>, unknown: [bool; CODES], sector: [bool; CODES]) -> Tables {
        let bits = |flags: &[bool; CODES]| {
            let mut w = [0u64; CODES / 64];
            flags.iter().enumerate().for_each(|(c, &f)| w[c / 64] |= (f as u64) << (c % 64));
            w
        };
        let mut padded = cat_key;
        padded.extend_from_slice(&[0; 3]);
        Tables { cat_key: padded.into_boxed_slice().try_into().expect("2^16 categories"), unknown_bits: bits(&unknown),
                 sector_bits: bits(&sector), unknown, sector }
    }
}

/// Table size for action codes and MSG (a code is < 257).
pub const CODES: usize = 512;

const NO_KEY: (u32, u32) = (u32::MAX, u32::MAX);

/// Room kept in front of each window for the record cut at the end of the last one (a record is at most a
/// 64-byte header and a 65,535-byte payload).
const HEAD: usize = 1 << 17;

/// What the decode counts per file, handed to the stream with the file's last window.
#[derive(Default)]
pub struct FileState {
    pub n_rec: u64,
    pub other_cpu: u64,
    pub devices: BTreeSet<u32>,
    pub gaps: BTreeMap<(u32, u32), (i64, i64)>,
}

/// One decoded window: its bytes (`data()[start..n]`: buf, the cut record of the last window in front, or the
/// file's mapping, where it is already in front), its events (notify records removed, messages kept), and
/// what the decode found for the decoder thread to replay.
pub struct Window {
    pub buf: Vec<u8>,
    pub map: Option<Arc<Map>>,
    pub start: usize,
    pub n: usize,
    pub offs: Vec<usize>,
    pub codes: Vec<u16>,
    pub times: Vec<u64>,
    pub sorted: bool,
    pub fmt: Fmt,
    /// the file's first window (its format is new) and its last (then `state` is set)
    pub first: bool,
    pub last: bool,
    /// input bytes this window accounts for (the progress meter)
    pub bytes: u64,
    /// bytes read into buf[HEAD..] (set by `read_window`)
    pub got: usize,
    pub notes: Notes,
    /// warnings, resyncs, truncation and unknown actions, in the order found
    pub rep: Report,
    pub state: Option<FileState>,
}

impl Default for Window {
    fn default() -> Window {
        Window {
            buf: Vec::new(),
            map: None,
            start: 0,
            n: 0,
            offs: Vec::new(),
            codes: Vec::new(),
            times: Vec::new(),
            sorted: true,
            fmt: Fmt { version: 7, big: false },
            first: false,
            last: false,
            bytes: 0,
            got: 0,
            notes: Notes::default(),
            rep: Report::default(),
            state: None,
        }
    }
}

impl Window {
    /// The window's bytes up to n (offsets index them).
    #[inline]
    pub fn data(&self) -> &[u8] {
        bytes(&self.map, &self.buf, self.n)
    }
}

/// A window's bytes from its fields (borrowed apart from the ones the decode writes).
#[inline]
fn bytes<'a>(map: &'a Option<Arc<Map>>, buf: &'a [u8], n: usize) -> &'a [u8] {
    match map {
        Some(m) => &m.bytes()[..n],
        None => &buf[..n],
    }
}

/// Where a file's bytes come from: read() into each window's buffer, or a mapping (mapped.rs) that the
/// windows are slices of.
pub enum Input {
    Read(Box<dyn Read + Send>),
    /// the mapping and the bytes of it handed out so far
    Map(Arc<Map>, usize),
}

impl Input {
    /// The next window's bytes (got < window: the end of the input): read into buf[HEAD..HEAD + got], or the
    /// next `window` bytes of the map, paged in now. `at`: the bytes of the input read before this window (a
    /// read error's byte offset counts from there).
    pub fn read_window(&mut self, path: &Path, at: u64, window: usize, w: &mut Window) -> Result<usize, Fail> {
        match self {
            Input::Read(input) => {
                if w.buf.len() < HEAD + window {
                    // zeroed by the allocator (calloc: pages untouched until read into), not by a memset of 1 MB
                    w.buf = vec![0; HEAD + window];
                }
                w.map = None;
                w.got = input::fill(input.as_mut(), &mut w.buf[HEAD..HEAD + window], path, at)?;
            }
            Input::Map(m, pos) => {
                w.got = window.min(m.bytes().len() - *pos);
                m.populate(*pos, *pos + w.got);
                *pos += w.got;
                w.map = Some(m.clone());
            }
        }
        Ok(w.got)
    }
}

/// What a window's notify records said, for the decoder thread to replay.
#[derive(Default)]
pub struct Notes {
    /// process notify records in record order: (pid, cpu, end of the name in `name_bytes`)
    pub names: Vec<(u32, u32, usize)>,
    pub name_bytes: Vec<u8>,
    /// the window's first timestamp notify: sec, nsec, at (trace time)
    pub wall: Option<(u32, u32, u64)>,
    /// notify records that are not events (all but messages)
    skipped: u64,
}

impl Notes {
    fn clear(&mut self) {
        self.names.clear();
        self.name_bytes.clear();
        self.wall = None;
        self.skipped = 0;
    }

    /// A notify record: true when it is a message (an event). Out of the walk's loop (notify records are
    /// rare), which then keeps its state in fewer registers.
    #[cold]
    #[inline(never)]
    fn note<L: Layout>(&mut self, f: L, buf: &[u8], o: usize, r: &Rec) -> bool {
        let skip = if r.action & CGROUP_BIT != 0 { 8 } else { 0 };
        let data = &buf[(o + f.hdr() + skip).min(o + f.hdr() + r.pdu_len as usize)..o + f.hdr() + r.pdu_len as usize];
        match r.action & 0xFF {
            NOTIFY_PROCESS => {
                let end = memchr::memchr(0, data).unwrap_or(data.len());
                self.name_bytes.extend_from_slice(&data[..end]);
                self.names.push((r.pid, r.cpu, self.name_bytes.len()));
            }
            NOTIFY_TIMESTAMP => {
                if self.wall.is_none() && data.len() >= 8 {
                    self.wall = Some((f.u32(data, 0), f.u32(data, 4), r.time));
                }
            }
            NOTIFY_MESSAGE => return true,
            _ => {}
        }
        self.skipped += 1;
        false
    }
}

/// Reads one file's windows and decodes them (on the decoder thread, or on a read-ahead thread).
pub struct Reader {
    path: PathBuf,
    input: Option<Input>, // None: a read-ahead thread has it
    window: usize,
    name_cpu: Option<u32>,
    t: Arc<Tables>,
    fmt: Option<Fmt>,
    base: u64, // file offset of the next window's first unconsumed byte
    carry: Vec<u8>,
    // a mapped input's windows: where the bytes handed out end, the first byte not consumed, the start of
    // the last window decoded (the decoder thread may hold it) and the bytes before it released
    read_end: usize,
    mpos: usize,
    prev_start: usize,
    released: usize,
    last_seq: HashMap<(u32, u32), u32>,
    cur: ((u32, u32), u32), // the (device, cpu) of the last record and its sequence number
    state: FileState,
    /// keep the report's counts (sequence gaps, devices, other CPUs, unknown actions): not in a split read's
    /// second thread, whose report is dropped
    pub counts: bool,
}

impl Reader {
    pub fn new(path: &Path, input: Input, base: u64, window: usize, name_cpu: Option<u32>, t: Arc<Tables>) -> Reader {
        Reader { path: path.to_owned(), input: Some(input), window, name_cpu, t, fmt: None, base, carry: Vec::new(),
                 read_end: 0, mpos: 0, prev_start: 0, released: 0, last_seq: HashMap::new(), cur: (NO_KEY, 0), state: FileState::default(), counts: true }
    }

    /// Read and decode the next window into `w` (its buffers reused).
    pub fn next(&mut self, w: &mut Window) -> Result<(), Fail> {
        let input = self.input.as_mut().expect("the input is read here");
        // base is where the carried bytes start: what was read before ends after them
        input.read_window(&self.path, self.base + self.carry.len() as u64, self.window, w)?;
        self.decode_window(w)
    }

    /// The input, for a thread that reads windows (`read_window`) for `decode_window` here.
    pub fn take_input(&mut self) -> Input {
        self.input.take().expect("the input, taken once")
    }

    /// Decode a window read by `read_window`: the cut record of the last window put in front first.
    pub fn decode_window(&mut self, w: &mut Window) -> Result<(), Fail> {
        let got = w.got;
        if let Some(m) = &w.map {
            // mapped: the cut record is still in front, where the last window left it
            self.read_end += got;
            (w.start, w.n) = (self.mpos, self.read_end);
            // released in batches: each MADV_DONTNEED flushes the TLB of every CPU running this process (an
            // interrupt to the writer's CPU)
            if self.prev_start - self.released >= RELEASE_BATCH {
                m.release(self.released, self.prev_start);
                self.released = self.prev_start;
            }
            self.prev_start = w.start;
        } else {
            // the walk leaves at most one cut record (or 3 bytes of a cut magic), shorter than HEAD
            let c = self.carry.len();
            assert!(c <= HEAD, "carry of {c} bytes");
            w.buf[HEAD - c..HEAD].copy_from_slice(&self.carry);
            (w.start, w.n) = (HEAD - c, HEAD + got);
        }
        w.last = got < self.window;
        w.first = self.fmt.is_none();
        w.offs.clear();
        w.codes.clear();
        w.times.clear();
        w.sorted = true;
        w.notes.clear();
        w.bytes = 0;
        w.rep = Report::default();
        w.state = None;
        if w.first {
            if w.n == w.start {
                return Err(Fail::new(&self.path, None, "empty file: expected blktrace binary records"));
            }
            let data = &w.data()[w.start..];
            self.fmt = Some(Fmt::detect(data).ok_or_else(|| {
                let h: String = data[..data.len().min(4)].iter().map(|b| format!("{b:02x}")).collect();
                Fail::offset(&self.path, self.base, format!("not a blktrace file (magic {h}, expected 0x656174 with version 7 or 8)"))
            })?);
        }
        let fmt = self.fmt.expect("detected above");
        w.fmt = fmt;
        if w.n > w.start {
            let consumed = if self.counts {
                with_layout!(fmt, l => self.decode::<_, true>(l, w))
            } else {
                with_layout!(fmt, l => self.decode::<_, false>(l, w))
            };
            w.bytes = (if w.last { w.n } else { consumed } - w.start) as u64;
            self.base += (consumed - w.start) as u64;
            if w.map.is_some() {
                self.mpos = consumed;
            } else {
                self.carry.clear();
                self.carry.extend_from_slice(&w.buf[consumed..w.n]);
            }
        }
        if w.last {
            w.state = Some(std::mem::take(&mut self.state));
        }
        Ok(())
    }

    /// Locate the window's records and decode them while their bytes are in L1: the walk hands over BATCH
    /// records at a time (a walk writing the offsets of the whole window and a decode pass reading them back were
    /// two passes over the window), decoded eight at a time where gather8 finds them regular, else one by one;
    /// returns where the next window starts. Not inlined into `next`: there the loop's state spilled to the
    /// stack (+170 M instructions on the bench set).
    #[inline(never)]
    fn decode<L: Layout, const COUNTS: bool>(&mut self, f: L, w: &mut Window) -> usize {
        let buf = bytes(&w.map, &w.buf, w.n);
        // every record is at least a header long: room for all the events of the window, written below
        // without a capacity check per push
        let cap = (w.n - w.start) / f.hdr() + 1;
        w.offs.reserve(cap);
        w.codes.reserve(cap);
        w.times.reserve(cap);
        // the per-record state in locals (registers), written back after the window: through &mut fields
        // each record loaded and stored them again (the raw stores below may alias them)
        let mut d = Dec {
            t: &self.t, buf, notes: &mut w.notes, offs: w.offs.as_mut_ptr(), codes: w.codes.as_mut_ptr(),
            times: w.times.as_mut_ptr(), k: 0, sorted: true, prev_time: 0, unknown: BTreeMap::new(),
            name_cpu: self.name_cpu, other_cpu: 0, cur: self.cur, last_seq: &mut self.last_seq,
            gaps: &mut self.state.gaps, devices: &mut self.state.devices,
        };
        let eights = !L::BIG && !L::V8 && gather8::enabled();
        let (mut pend, mut np) = ([0usize; BATCH], 0);
        let fmt = self.fmt.expect("detected");
        let consumed = walk_records(f, fmt, buf, w.start, self.base, &self.path, w.last, &mut w.rep, |o| {
            if !eights {
                d.one::<L, COUNTS>(f, o);
                return;
            }
            pend[np] = o;
            np += 1;
            if np == BATCH {
                d.batch::<L, COUNTS>(f, &pend);
                np = 0;
            }
        });
        d.batch::<L, COUNTS>(f, &pend[..np]);
        let (k, sorted, unknown) = (d.k, d.sorted, std::mem::take(&mut d.unknown));
        self.state.other_cpu += d.other_cpu;
        self.cur = d.cur;
        self.state.n_rec += k as u64 + w.notes.skipped;
        // SAFETY: the first k slots of each were written above (the vectors were cleared in `next`)
        unsafe {
            w.offs.set_len(k);
            w.codes.set_len(k);
            w.times.set_len(k);
        }
        w.sorted = sorted;
        if !unknown.is_empty() {
            // 257 strings, made only when needed (they were made for every window, ~500 times on the bench set)
            let names_tbl = action_names();
            for (c, k) in unknown {
                w.rep.count_unknown(&format!("action {}", names_tbl[c]), k);
            }
        }
        consumed
    }
}

/// Records the walk hands to the decode at a time: ~13 KB of the bench set's, in L1 still.
const BATCH: usize = 256;

/// A window's decode: what it writes (events' offsets, codes and times, at most one per record, in room reserved
/// beforehand) and the per-record state it keeps.
struct Dec<'a> {
    t: &'a Tables,
    buf: &'a [u8],
    notes: &'a mut Notes,
    offs: *mut usize,
    codes: *mut u16,
    times: *mut u64,
    k: usize, // events so far
    sorted: bool,
    prev_time: u64,
    unknown: BTreeMap<usize, i64>,
    name_cpu: Option<u32>,
    other_cpu: u64,
    cur: ((u32, u32), u32), // the (device, cpu) of the last record and its sequence number
    last_seq: &'a mut HashMap<(u32, u32), u32>,
    gaps: &'a mut BTreeMap<(u32, u32), (i64, i64)>,
    devices: &'a mut BTreeSet<u32>,
}

impl Dec<'_> {
    /// Records in walk order: eight at a time while gather8 finds them regular (the same device, CPU and
    /// sequence as the record before, consecutive numbers, no notify, no unknown action), else one by one.
    fn batch<L: Layout, const COUNTS: bool>(&mut self, f: L, recs: &[usize]) {
        let mut eights = recs.chunks_exact(8);
        for r8 in eights.by_ref() {
            let before = gather8::Before { unknown: &self.t.unknown_bits, key: COUNTS.then_some(self.cur),
                                           prev_time: self.prev_time, name_cpu: self.name_cpu };
            // SAFETY: k + 8 <= cap (a record gives at most one event), the room reserved in `decode`; the records
            // lie wholly inside buf (the walk's offsets)
            let run = unsafe { gather8::regular(self.buf, r8, &before, self.offs.add(self.k), self.codes.add(self.k),
                                                self.times.add(self.k)) };
            match run {
                Some(run) => {
                    self.k += 8;
                    self.sorted &= run.sorted;
                    self.prev_time = run.time;
                    if COUNTS {
                        self.cur.1 = run.seq;
                        self.other_cpu += run.other;
                    }
                }
                None => r8.iter().for_each(|&o| self.one::<L, COUNTS>(f, o)),
            }
        }
        for &o in eights.remainder() {
            self.one::<L, COUNTS>(f, o);
        }
    }

    /// One record: its event (none for a notify record that is not a message), and what it counts.
    #[inline(always)]
    fn one<L: Layout, const COUNTS: bool>(&mut self, f: L, o: usize) {
        let (buf, t) = (self.buf, self.t);
        let r = f.rec(buf, o);
        let cat = ((r.action >> 16) & 0xFFFF) as u32;
        let mut code = (r.action & 0xFF) as usize;
        if cat & TC_NOTIFY != 0 {
            if !self.notes.note(f, buf, o, &r) {
                return;
            }
            code = MSG;
        }
        if COUNTS && t.unknown[code & (CODES - 1)] {
            *self.unknown.entry(code).or_insert(0) += 1;
        }
        if let (true, Some(c)) = (COUNTS, self.name_cpu) {
            self.other_cpu += (r.cpu != c) as u64;
        }
        if COUNTS && code != MSG {
            let key = (r.device, r.cpu);
            let cur = &mut self.cur;
            // the usual per-CPU file has one key: skip the map while it stays the same
            let prev = if cur.0 == key {
                let p = cur.1;
                cur.1 = r.seq;
                Some(p)
            } else {
                if cur.0 != NO_KEY {
                    self.last_seq.insert(cur.0, cur.1);
                }
                *cur = (key, r.seq);
                self.last_seq.get(&key).copied()
            };
            if let Some(prev) = prev {
                let d = r.seq as i64 - prev as i64;
                if d > 1 || d <= 0 {
                    let g = self.gaps.entry(key).or_insert((0, 0));
                    if d > 1 {
                        g.0 += d - 1;
                    } else {
                        g.1 += 1;
                    }
                }
            } else {
                self.devices.insert(r.device);
            }
            if cur.0 == key && prev.is_none() {
                self.last_seq.insert(key, r.seq);
            }
        }
        // (times are unsigned: the first event of the window compares with 0 and keeps `sorted`)
        self.sorted &= r.time >= self.prev_time;
        self.prev_time = r.time;
        // SAFETY: k < cap, the room reserved in `decode` (one event per record at most, each record at least a
        // header long, all of them inside buf[start..n])
        unsafe {
            self.offs.add(self.k).write(o);
            self.codes.add(self.k).write(code as u16);
            self.times.add(self.k).write(r.time);
        }
        self.k += 1;
    }
}

/// Bytes ahead of the walk that it asks the CPU to load into L1: each record's address depends on the last
/// one's payload length, so a line the hardware has not fetched yet stalls the walk for its whole latency (42 %
/// of the walk's samples on the load of the payload length, Intel Xeon VM). 2-8 KB ahead: one thread 0.448 ->
/// 0.394-0.402 s on the bench set, 512 B 0.413 s (bench/RESULTS.md, 2026-12-01 twelfth session).
/// BLKSCOPE_BLKTRACE_PREFETCH=BYTES overrides it (0: the current record, no gain).
fn prefetch_distance() -> usize {
    static AHEAD: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *AHEAD.get_or_init(|| std::env::var("BLKSCOPE_BLKTRACE_PREFETCH").ok().and_then(|v| v.parse().ok()).unwrap_or(4096))
}

/// A hint only: an address past the end is not read (x86's prefetch does not fault), nothing elsewhere.
#[inline(always)]
pub fn prefetch(buf: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetcht0 reads nothing into the program and does not fault on any address
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(buf.as_ptr().wrapping_add(at) as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (buf, at);
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
    let ahead = prefetch_distance();
    let mut pos = start;
    while pos + 4 <= n {
        prefetch(buf, pos + ahead);
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
        let (mut offs, mut rep) = (Vec::new(), Report::default());
        let f = super::super::layout::Fixed::<false, false>;
        let consumed = walk_records(f, Fmt { version: 7, big: false }, data, 0, 0, Path::new("t.blktrace.0"), last,
                                    &mut rep, |o| offs.push(o));
        (offs, consumed, rep)
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
