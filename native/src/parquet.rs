//! A Parquet writer for the events table, written for speed: generic writers spend ~140 ns per row of
//! this 21-column table (bench/RESULTS.md); here a row costs what its non-null values cost.
//!
//! Every column is OPTIONAL, one data page (v1, uncompressed) per PAGE_ROWS rows per column:
//! integers DELTA_BINARY_PACKED (min/max statistics), strings RLE_DICTIONARY over the keys used in the
//! row group, all-null columns definition levels only. No Arrow schema is stored: readers map the
//! logical types (UINT_32, STRING ...) to the dtypes of schemas.EVENTS.

use std::fs::File;
use std::path::Path;

use crate::encode::{bit_width, count_true, def_levels, def_levels_all, def_levels_sparse, delta_binary_packed, plain_strings, rle_hybrid_keys};
use crate::events::{Col, Cols, Dict, Events, Sparse};
use crate::gather::Gather;
use crate::thrift::{self, Writer as Thrift};

const PAGE_ROWS: usize = 1 << 17;

// Parquet enums (parquet.thrift)
const INT32: i32 = 1;
const INT64: i32 = 2;
const BYTE_ARRAY: i32 = 6;
const OPTIONAL: i32 = 1;
const PLAIN: i32 = 0;
const RLE: i32 = 3;
const DELTA_BINARY_PACKED: i32 = 5;
const RLE_DICTIONARY: i32 = 8;
const DATA_PAGE: i32 = 0;
const DICTIONARY_PAGE: i32 = 2;
const UTF8: i32 = 0;
const UINT_32: i32 = 13;
const UINT_64: i32 = 14;
const INT_32: i32 = 17;
const INT_64: i32 = 18;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    U32,
    I32,
    I64,
    U64,
    Str,
}

/// EVENT_COLUMNS of readers/trace_text.py, in order.
const SCHEMA: [(&str, Kind); 21] = [
    ("dev_major", Kind::U32),
    ("dev_minor", Kind::U32),
    ("cpu", Kind::U32),
    ("seq", Kind::I64),
    ("time_ns", Kind::I64),
    ("pid", Kind::U32),
    ("action", Kind::Str),
    ("rwbs", Kind::Str),
    ("sector", Kind::I64),
    ("nsectors", Kind::I64),
    ("error", Kind::I32),
    ("process", Kind::Str),
    ("remap_dev_major", Kind::U32),
    ("remap_dev_minor", Kind::U32),
    ("remap_sector", Kind::I64),
    ("split_sector", Kind::I64),
    ("unplug_count", Kind::I64),
    ("pc_bytes", Kind::I64),
    ("cdb", Kind::Str),
    ("message", Kind::Str),
    ("cgroup_id", Kind::U64),
];

/// How many columns the events table has.
pub const COLUMNS: usize = SCHEMA.len();

struct ChunkMeta {
    kind: Kind,
    name: &'static str,
    encodings: Vec<i32>,
    num_values: i64,
    size: i64,
    data_page_offset: i64,
    dict_page_offset: Option<i64>,
    stats: Option<(Vec<u8>, Vec<u8>, i64)>, // min, max, null count
}

/// Chunks of consecutive columns of one row group, encoded on another thread (a Cols::Second writer's, or the
/// decoder's while the writer thread is busy: sink.rs), for the file's writer to `append`.
pub struct Part {
    bytes: Vec<u8>,
    chunks: Vec<ChunkMeta>,
    rows: i64,
}

impl Part {
    /// Parts of one row group's columns, given in column order, as one part.
    pub fn join(parts: impl IntoIterator<Item = Part>) -> Option<Part> {
        let mut it = parts.into_iter();
        let mut all = it.next()?;
        for p in it {
            assert_eq!(all.rows, p.rows, "the parts of a row group have as many rows");
            let base = all.bytes.len() as i64;
            all.bytes.extend_from_slice(&p.bytes);
            all.chunks.extend(p.chunks.into_iter().map(|c| c.shifted(base)));
        }
        Some(all)
    }
}

impl ChunkMeta {
    /// The chunk `base` bytes further into the file.
    fn shifted(self, base: i64) -> ChunkMeta {
        ChunkMeta { data_page_offset: self.data_page_offset + base, dict_page_offset: self.dict_page_offset.map(|d| d + base), ..self }
    }
}

struct RowGroupMeta {
    rows: i64,
    bytes: i64,
    offset: i64,
    chunks: Vec<ChunkMeta>,
}

pub struct EventsWriter {
    /// page bodies are encoded into out.bodies, where they are written from
    out: Gather,
    /// the columns this writer encodes (all but in a two-thread read of a binary trace)
    cols: Cols,
    pos: u64,
    groups: Vec<RowGroupMeta>,
    rows: i64,
    /// Time per column (BLKSCOPE_NATIVE_TIMING set): where the writer's time goes.
    col_time: Option<[std::time::Duration; 21]>,
}

/// Integer columns of every width, encoded in 64-bit arithmetic (wrapping to 32 bits where stored so). Each
/// column's Rust type has its Parquet sort order (unsigned for UINT_*), so `Ord` gives its statistics.
pub trait Int: Copy + Ord {
    fn i64(self) -> i64;
    /// PLAIN bytes (little-endian), as statistics are stored
    fn plain(self) -> Vec<u8>;
}
macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            #[inline(always)]
            fn i64(self) -> i64 {
                self as i64
            }
            fn plain(self) -> Vec<u8> {
                self.to_le_bytes().to_vec()
            }
        }
    )*};
}
int!(u32 i32 i64 u64);

/// Which rows of a column chunk have a value.
#[derive(Clone, Copy)]
enum Valid<'a> {
    /// every row
    All,
    /// a dense column with nulls: a flag per row
    Flags(&'a [bool]),
    /// a sparse column: the (ascending) rows that have one. Its levels are made from these directly:
    /// a flag per row of 9 mostly empty columns cost more than the columns' values.
    Rows(&'a [u32]),
}

impl<'a> Valid<'a> {
    fn dense<T: Copy + Default>(c: &'a Col<T>) -> Valid<'a> {
        c.valid().map_or(Valid::All, Valid::Flags)
    }
    fn sparse<T>(s: &'a Sparse<T>) -> Valid<'a> {
        Valid::Rows(&s.rows)
    }
}

/// The non-null values of a dense column, borrowed when there is no null.
fn present<T: Copy + Default>(c: &Col<T>) -> std::borrow::Cow<'_, [T]> {
    let Some(ok) = c.valid() else {
        return std::borrow::Cow::Borrowed(&c.v);
    };
    {
        // branchless compaction: every value is written, the cursor only advances past kept ones
        let mut out: Vec<T> = Vec::with_capacity(c.v.len() + 1);
        let dst = out.as_mut_ptr();
        let mut k = 0;
        for (&x, &ok) in c.v.iter().zip(ok) {
            // SAFETY: k <= the values seen so far < v.len() + 1, the capacity (an indexed store into the
            // spare capacity was bounds-checked: 9 instructions per row of sector, nsectors and process)
            unsafe { dst.add(k).write(x) };
            k += ok as usize;
        }
        // SAFETY: the first k slots were written above
        unsafe { out.set_len(k) };
        std::borrow::Cow::Owned(out)
    }
}

impl EventsWriter {
    pub fn create(path: &Path) -> std::io::Result<EventsWriter> {
        let mut out = Gather::new(File::create(path)?);
        out.small(b"PAR1");
        let col_time = std::env::var_os("BLKSCOPE_NATIVE_TIMING").map(|_| Default::default());
        Ok(EventsWriter { out, cols: Cols::All, pos: 4, groups: Vec::new(), rows: 0, col_time })
    }

    /// A writer of the file's columns `cols` (the file's own writer: Cols::First).
    pub fn create_part(path: &Path, cols: Cols) -> std::io::Result<EventsWriter> {
        Ok(EventsWriter { cols, ..EventsWriter::create(path)? })
    }

    /// A writer into memory: each row group's chunks taken by `take_part`.
    pub fn memory() -> EventsWriter {
        EventsWriter { out: Gather::memory(), cols: Cols::All, pos: 0, groups: Vec::new(), rows: 0, col_time: None }
    }

    /// A writer of the Cols::Second columns into memory.
    pub fn second() -> EventsWriter {
        EventsWriter { cols: Cols::Second, ..EventsWriter::memory() }
    }

    /// The last row group's encoded chunks (offsets from their first byte), for the file's writer's `append`.
    pub fn take_part(&mut self) -> Option<Part> {
        let g = self.groups.pop()?;
        let mut bytes = Vec::with_capacity(self.pos as usize);
        self.out.drain(&mut bytes);
        self.pos = 0;
        Some(Part { bytes, chunks: g.chunks, rows: g.rows })
    }

    /// Append the other columns of the row group just written (`take_part` of a Cols::Second writer).
    pub fn append(&mut self, p: Part) -> std::io::Result<()> {
        let g = self.groups.last_mut().expect("a row group to append to");
        assert_eq!(g.rows, p.rows, "the two parts of a row group have as many rows");
        let base = self.pos as i64;
        self.out.write_after(&p.bytes)?;
        self.pos += p.bytes.len() as u64;
        g.bytes += p.bytes.len() as i64;
        g.chunks.extend(p.chunks.into_iter().map(|c| c.shifted(base)));
        Ok(())
    }

    fn put(&mut self, b: &[u8]) {
        self.out.small(b);
        self.pos += b.len() as u64;
    }

    /// A page: its header, then the body encoded into out.bodies[from..].
    fn page(&mut self, h: &Thrift, from: usize) -> std::io::Result<()> {
        self.put(&h.buf);
        self.pos += (self.out.bodies.len() - from) as u64;
        self.out.body(from)
    }

    /// Write the rows of `ev` as one row group (nothing for zero rows).
    pub fn write(&mut self, ev: &Events) -> std::io::Result<()> {
        self.write_cols(ev, 0..SCHEMA.len())
    }

    /// `write` of the columns in `cols` (EVENT_COLUMNS positions) alone; an empty range still makes the row
    /// group, for parts to be appended to.
    pub fn write_cols(&mut self, ev: &Events, cols: std::ops::Range<usize>) -> std::io::Result<()> {
        ev.check(self.cols);
        let n = ev.len();
        if n == 0 {
            return Ok(());
        }
        let start = self.pos;
        let mut c = Vec::with_capacity(SCHEMA.len());
        let mut col = |w: &mut Self, i: usize, f: &dyn Fn(&mut Self, &mut ChunkMeta) -> std::io::Result<()>| {
            if !w.cols.has(i) || !cols.contains(&i) {
                return Ok(());
            }
            let (name, kind) = SCHEMA[i];
            let start = w.pos as i64;
            let mut meta = ChunkMeta {
                kind,
                name,
                encodings: vec![RLE],
                num_values: n as i64,
                size: 0,
                data_page_offset: start,
                dict_page_offset: None,
                stats: None,
            };
            let t = w.col_time.is_some().then(thread_cpu);
            f(w, &mut meta)?;
            if let (Some(ct), Some(t)) = (&mut w.col_time, t) {
                ct[i] += thread_cpu() - t;
            }
            meta.size = w.pos as i64 - start;
            c.push(meta);
            Ok::<(), std::io::Error>(())
        };
        col(self, 0, &|w, m| w.int_pages(m, Valid::dense(&ev.dev_major), &present(&ev.dev_major), n))?;
        col(self, 1, &|w, m| w.int_pages(m, Valid::dense(&ev.dev_minor), &present(&ev.dev_minor), n))?;
        col(self, 2, &|w, m| w.int_pages(m, Valid::dense(&ev.cpu), &present(&ev.cpu), n))?;
        col(self, 3, &|w, m| w.int_pages(m, Valid::dense(&ev.seq), &present(&ev.seq), n))?;
        col(self, 4, &|w, m| w.int_pages(m, Valid::dense(&ev.time_ns), &present(&ev.time_ns), n))?;
        col(self, 5, &|w, m| w.int_pages(m, Valid::dense(&ev.pid), &present(&ev.pid), n))?;
        col(self, 6, &|w, m| w.str_pages(m, Valid::dense(&ev.action.keys), &present(&ev.action.keys), &ev.action.dict, n))?;
        col(self, 7, &|w, m| w.str_pages(m, Valid::dense(&ev.rwbs.keys), &present(&ev.rwbs.keys), &ev.rwbs.dict, n))?;
        col(self, 8, &|w, m| w.int_pages(m, Valid::dense(&ev.sector), &present(&ev.sector), n))?;
        col(self, 9, &|w, m| w.int_pages(m, Valid::dense(&ev.nsectors), &present(&ev.nsectors), n))?;
        col(self, 10, &|w, m| w.int_pages(m, Valid::dense(&ev.error), &present(&ev.error), n))?;
        col(self, 11, &|w, m| w.str_pages(m, Valid::dense(&ev.process.keys), &present(&ev.process.keys), &ev.process.dict, n))?;
        col(self, 12, &|w, m| w.int_pages(m, Valid::sparse(&ev.remap_dev_major), &ev.remap_dev_major.v, n))?;
        col(self, 13, &|w, m| w.int_pages(m, Valid::sparse(&ev.remap_dev_minor), &ev.remap_dev_minor.v, n))?;
        col(self, 14, &|w, m| w.int_pages(m, Valid::sparse(&ev.remap_sector), &ev.remap_sector.v, n))?;
        col(self, 15, &|w, m| w.int_pages(m, Valid::sparse(&ev.split_sector), &ev.split_sector.v, n))?;
        col(self, 16, &|w, m| w.int_pages(m, Valid::sparse(&ev.unplug_count), &ev.unplug_count.v, n))?;
        col(self, 17, &|w, m| w.int_pages(m, Valid::sparse(&ev.pc_bytes), &ev.pc_bytes.v, n))?;
        col(self, 18, &|w, m| w.str_pages(m, Valid::sparse(&ev.cdb.keys), &ev.cdb.keys.v, &ev.cdb.dict, n))?;
        col(self, 19, &|w, m| w.str_pages(m, Valid::sparse(&ev.message.keys), &ev.message.keys.v, &ev.message.dict, n))?;
        col(self, 20, &|w, m| w.int_pages(m, Valid::sparse(&ev.cgroup_id), &ev.cgroup_id.v, n))?;
        let chunks = c;
        self.groups.push(RowGroupMeta { rows: n as i64, bytes: (self.pos - start) as i64, offset: start as i64, chunks });
        self.rows += n as i64;
        Ok(())
    }

    /// Data pages of an integer column; `vals` are the non-null values in row order.
    fn int_pages<T: Int>(&mut self, meta: &mut ChunkMeta, ok: Valid, vals: &[T], n: usize)
        -> std::io::Result<()> {
        let bits = 8 * size_of::<T>() as u32; // T, the column's type, also gives the statistics' order
        let enc = if vals.is_empty() { PLAIN } else { DELTA_BINARY_PACKED };
        meta.encodings.push(enc);
        let mut lohi: Option<(T, T)> = None;
        let mut at = 0usize;
        for (start, rows) in pages(n) {
            let body = &mut self.out.bodies;
            let from = body.len();
            let k = page_levels(body, ok, start, rows);
            if k > 0 {
                let (lo, hi) = delta_binary_packed(body, &vals[at..at + k], bits).expect("k > 0 values");
                lohi = Some(lohi.map_or((lo, hi), |(l, h)| (l.min(lo), h.max(hi))));
            }
            at += k;
            self.data_page(from, rows, enc)?;
        }
        meta.stats = lohi.map(|(lo, hi)| (lo.plain(), hi.plain(), (n - vals.len()) as i64));
        Ok(())
    }

    /// Dictionary page of the keys used in this row group, then data pages of remapped keys.
    fn str_pages(&mut self, meta: &mut ChunkMeta, ok: Valid, keys: &[u32], dict: &Dict, n: usize)
        -> std::io::Result<()> {
        let (used, remap) = local_keys(keys, dict.values.len());
        let enc = if used.is_empty() { PLAIN } else { RLE_DICTIONARY };
        meta.encodings.push(enc);
        if !used.is_empty() {
            meta.encodings.push(PLAIN);
            meta.dict_page_offset = Some(self.pos as i64);
            let from = self.out.bodies.len();
            plain_strings(&mut self.out.bodies, used.iter().map(|&k| dict.values[k as usize].as_str()));
            let len = (self.out.bodies.len() - from) as i32;
            let mut h = Thrift::default();
            h.i32(1, DICTIONARY_PAGE);
            h.i32(2, len);
            h.i32(3, len);
            h.begin(7);
            h.i32(1, used.len() as i32);
            h.i32(2, PLAIN);
            h.end();
            h.stop();
            self.page(&h, from)?;
        }
        meta.data_page_offset = self.pos as i64;
        let w = bit_width(used.len().saturating_sub(1) as u64);
        let mut at = 0usize;
        for (start, rows) in pages(n) {
            let body = &mut self.out.bodies;
            let from = body.len();
            let k = page_levels(body, ok, start, rows);
            if k > 0 {
                body.push(w as u8);
                rle_hybrid_keys(body, &keys[at..at + k], w, remap.as_deref());
            }
            at += k;
            self.data_page(from, rows, enc)?;
        }
        Ok(())
    }

    /// A data page whose body was encoded into out.bodies[from..].
    fn data_page(&mut self, from: usize, values: usize, enc: i32) -> std::io::Result<()> {
        let len = (self.out.bodies.len() - from) as i32;
        let mut h = Thrift::default();
        h.i32(1, DATA_PAGE);
        h.i32(2, len);
        h.i32(3, len);
        h.begin(5);
        h.i32(1, values as i32);
        h.i32(2, enc);
        h.i32(3, RLE);
        h.i32(4, RLE);
        h.end();
        h.stop();
        self.page(&h, from)
    }

    /// Footer (FileMetaData), its length and the closing magic.
    pub fn finish(mut self) -> std::io::Result<u64> {
        if let Some(ct) = &self.col_time {
            let cols: Vec<String> = SCHEMA.iter().zip(ct).map(|((n, _), t)| format!("{n} {:.3}", t.as_secs_f64())).collect();
            eprintln!("blkscope-native: seconds per column: {}", cols.join(", "));
        }
        let mut t = Thrift::default();
        thrift::footer_schema(&mut t, SCHEMA.len());
        for &(name, kind) in &SCHEMA {
            t.begin_elem();
            t.i32(1, physical(kind));
            t.i32(3, OPTIONAL);
            t.binary(4, name.as_bytes());
            t.i32(6, converted(kind));
            t.begin(10); // LogicalType union
            match kind {
                Kind::Str => {
                    t.begin(1);
                    t.end();
                }
                _ => {
                    t.begin(10);
                    t.byte(1, if matches!(kind, Kind::U32 | Kind::I32) { 32 } else { 64 });
                    t.bool(2, matches!(kind, Kind::I32 | Kind::I64));
                    t.end();
                }
            }
            t.end();
            t.end();
        }
        t.i64(3, self.rows);
        t.list(4, thrift::STRUCT, self.groups.len());
        for g in &self.groups {
            t.begin_elem();
            t.list(1, thrift::STRUCT, g.chunks.len());
            for c in &g.chunks {
                t.begin_elem();
                t.i64(2, c.dict_page_offset.unwrap_or(c.data_page_offset));
                t.column_meta(physical(c.kind), &c.encodings, c.name, c.num_values, c.size, c.data_page_offset);
                if let Some(d) = c.dict_page_offset {
                    t.i64(11, d);
                }
                if let Some((min, max, nulls)) = &c.stats {
                    t.begin(12);
                    t.i64(3, *nulls);
                    t.binary(5, max);
                    t.binary(6, min);
                    t.end();
                }
                t.end();
                t.end();
            }
            t.i64(2, g.bytes);
            t.i64(3, g.rows);
            t.i64(5, g.offset);
            t.i64(6, g.bytes);
            t.end();
        }
        t.binary(6, b"blkscope-native");
        // column_orders: TypeDefinedOrder for every column. Without it the spec leaves min_value/max_value
        // undefined, and pyarrow (parquet-cpp) ignores them (tests/test_parquet_readers.py found it)
        t.list(7, thrift::STRUCT, SCHEMA.len());
        for _ in &SCHEMA {
            t.begin_elem();
            t.begin(1);
            t.end();
            t.end();
        }
        t.stop();
        let len = t.buf.len() as u32;
        self.put(&t.buf);
        self.put(&len.to_le_bytes());
        self.put(b"PAR1");
        self.out.flush()?;
        Ok(self.pos)
    }
}

/// CPU time of this thread: what the per-column timers add up (wall time counts other processes on a
/// loaded machine).
pub fn thread_cpu() -> std::time::Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec, which lives on this stack frame
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The dictionary keys a row group uses (ascending) and the renumbering of its keys into them (key ->
/// position in the used ones), applied as the keys are packed. Marking the used keys first and
/// renumbering in key order (not order of first use) leaves no branch in the per-key loops; when every
/// key of the dictionary is used the keys stay as they are (None).
fn local_keys(keys: &[u32], dict_len: usize) -> (Vec<u32>, Option<Vec<u32>>) {
    let mask = dict_len.next_power_of_two() - 1;
    let used: Vec<u32> = if dict_len <= 64 {
        // a bit per key, OR-ed over the keys: a reduction that vectorises (variable shifts, eight keys an
        // instruction), where a store per key was 3.5 % of a one-thread ingest (action, rwbs, process)
        let seen = keys.iter().fold(0u64, |a, &k| a | 1 << (k & 63));
        (0..dict_len as u32).filter(|&k| seen >> k & 1 == 1).collect()
    } else {
        // marks in a power-of-two table indexed by key & mask: no bounds check per key (a key is < dict_len,
        // so the mask never changes it; the checked store was ~6 instructions per row of each string column)
        let mut seen = vec![false; mask + 1];
        for &k in keys {
            debug_assert!((k as usize) < dict_len);
            // SAFETY: k & mask <= mask < seen.len()
            unsafe { *seen.get_unchecked_mut(k as usize & mask) = true };
        }
        (0..dict_len as u32).filter(|&k| seen[k as usize]).collect()
    };
    if used.len() == dict_len {
        return (used, None);
    }
    let mut remap = vec![0u32; mask + 1]; // a power of two long, as rle_hybrid_keys wants
    for (local, &k) in used.iter().enumerate() {
        remap[k as usize] = local as u32;
    }
    (used, Some(remap))
}

/// (first row, rows) of each page of a column chunk of n rows.
fn pages(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).step_by(PAGE_ROWS).map(move |s| (s, PAGE_ROWS.min(n - s)))
}

/// Definition levels of a page; returns how many rows have a value.
fn page_levels(body: &mut Vec<u8>, ok: Valid, start: usize, rows: usize) -> usize {
    match ok {
        Valid::All => {
            def_levels_all(body, rows);
            rows
        }
        Valid::Flags(ok) => {
            let okp = &ok[start..start + rows];
            def_levels(body, okp);
            count_true(okp)
        }
        Valid::Rows(have) => {
            let lo = have.partition_point(|&r| (r as usize) < start);
            let hi = have.partition_point(|&r| (r as usize) < start + rows);
            def_levels_sparse(body, &have[lo..hi], start, rows);
            hi - lo
        }
    }
}

fn physical(k: Kind) -> i32 {
    match k {
        Kind::U32 | Kind::I32 => INT32,
        Kind::I64 | Kind::U64 => INT64,
        Kind::Str => BYTE_ARRAY,
    }
}

fn converted(k: Kind) -> i32 {
    match k {
        Kind::U32 => UINT_32,
        Kind::I32 => INT_32,
        Kind::I64 => INT_64,
        Kind::U64 => UINT_64,
        Kind::Str => UTF8,
    }
}

#[cfg(test)]
mod tests {
    use super::local_keys;

    #[test]
    fn used_keys_and_renumbering_by_bits_and_by_marks_agree_with_a_sort() {
        let mut x = 5u64;
        // dictionaries around the 64-value boundary between the two ways of marking the used keys
        for dict_len in [1usize, 2, 7, 63, 64, 65, 100, 300] {
            // keys from all of the dictionary, or only its upper half (a key past bit 63 taken for key 0 shows)
            for (n, lo) in [0usize, 1, 8, 1000].into_iter().flat_map(|n| [(n, 0), (n, dict_len / 2)]) {
                let keys: Vec<u32> = (0..n).map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (lo + (x >> 33) as usize % (dict_len - lo)) as u32
                }).collect();
                let mut want = keys.clone();
                want.sort_unstable();
                want.dedup();
                let (used, remap) = local_keys(&keys, dict_len);
                assert_eq!(used, want, "{dict_len} values, {n} keys");
                match remap {
                    None => assert_eq!(used.len(), dict_len),
                    Some(m) => used.iter().enumerate().for_each(|(i, &k)| assert_eq!(m[k as usize], i as u32)),
                }
            }
        }
    }
}
