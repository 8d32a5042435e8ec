//! A Parquet writer for the events table, written for speed: generic writers spend ~140 ns per row of
//! this 21-column table (bench/RESULTS.md); here a row costs what its non-null values cost.
//!
//! Every column is OPTIONAL, one data page (v1, uncompressed) per PAGE_ROWS rows per column:
//! integers DELTA_BINARY_PACKED (min/max statistics), strings RLE_DICTIONARY over the keys used in the
//! row group, all-null columns definition levels only. No Arrow schema is stored: readers map the
//! logical types (UINT_32, STRING ...) to the dtypes of schemas.EVENTS.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::encode::{bit_width, def_levels, delta_binary_packed, plain_strings, rle_hybrid};
use crate::events::{Col, Dict, Events, Sparse, SparseStr, StrCol};
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

struct RowGroupMeta {
    rows: i64,
    bytes: i64,
    offset: i64,
    chunks: Vec<ChunkMeta>,
}

pub struct EventsWriter {
    out: BufWriter<File>,
    pos: u64,
    groups: Vec<RowGroupMeta>,
    rows: i64,
}

/// A column of one row group seen the same way whatever its storage: values of the non-null rows,
/// in row order, plus the validity of every row.
enum View<'a> {
    Ints { ok: Vec<bool>, vals: Vec<i64>, all_ok: bool },
    Dense { col: &'a Col<i64> },
    Keys { ok: &'a [bool], keys: Vec<u32>, dict: &'a Dict },
    SparseKeys { ok: Vec<bool>, keys: &'a [u32], dict: &'a Dict },
}

fn sparse_ok<T>(s: &Sparse<T>, n: usize) -> Vec<bool> {
    let mut ok = vec![false; n];
    for &r in &s.rows {
        ok[r as usize] = true;
    }
    ok
}

fn ints<T: Copy + Into<i64>>(c: &Col<T>) -> View<'static> {
    let all_ok = c.ok.iter().all(|&b| b);
    let vals = if all_ok {
        c.v.iter().map(|&x| x.into()).collect()
    } else {
        c.v.iter().zip(&c.ok).filter(|(_, &ok)| ok).map(|(&x, _)| x.into()).collect()
    };
    View::Ints { ok: c.ok.clone(), vals, all_ok }
}

fn sparse_ints<T: Copy + Into<i64>>(s: &Sparse<T>, n: usize) -> View<'static> {
    View::Ints { ok: sparse_ok(s, n), vals: s.v.iter().map(|&x| x.into()).collect(), all_ok: s.rows.len() == n }
}

fn u64_ints(s: &Sparse<u64>, n: usize) -> View<'static> {
    View::Ints { ok: sparse_ok(s, n), vals: s.v.iter().map(|&x| x as i64).collect(), all_ok: s.rows.len() == n }
}

fn keys(c: &StrCol) -> View<'_> {
    let k: Vec<u32> = c.keys.v.iter().zip(&c.keys.ok).filter(|(_, &ok)| ok).map(|(&k, _)| k).collect();
    View::Keys { ok: &c.keys.ok, keys: k, dict: &c.dict }
}

fn sparse_keys(c: &SparseStr, n: usize) -> View<'_> {
    View::SparseKeys { ok: sparse_ok(&c.keys, n), keys: &c.keys.v, dict: &c.dict }
}

impl EventsWriter {
    pub fn create(path: &Path) -> std::io::Result<EventsWriter> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        out.write_all(b"PAR1")?;
        Ok(EventsWriter { out, pos: 4, groups: Vec::new(), rows: 0 })
    }

    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    /// Write the rows of `ev` as one row group (nothing for zero rows).
    pub fn write(&mut self, ev: &Events) -> std::io::Result<()> {
        ev.check();
        let n = ev.len();
        if n == 0 {
            return Ok(());
        }
        let start = self.pos;
        let mut chunks = Vec::with_capacity(SCHEMA.len());
        for (i, &(name, kind)) in SCHEMA.iter().enumerate() {
            let view = match i {
                0 => ints(&ev.dev_major),
                1 => ints(&ev.dev_minor),
                2 => ints(&ev.cpu),
                3 => View::Dense { col: &ev.seq },
                4 => View::Dense { col: &ev.time_ns },
                5 => ints(&ev.pid),
                6 => keys(&ev.action),
                7 => keys(&ev.rwbs),
                8 => View::Dense { col: &ev.sector },
                9 => View::Dense { col: &ev.nsectors },
                10 => ints(&ev.error),
                11 => keys(&ev.process),
                12 => sparse_ints(&ev.remap_dev_major, n),
                13 => sparse_ints(&ev.remap_dev_minor, n),
                14 => sparse_ints(&ev.remap_sector, n),
                15 => sparse_ints(&ev.split_sector, n),
                16 => sparse_ints(&ev.unplug_count, n),
                17 => sparse_ints(&ev.pc_bytes, n),
                18 => sparse_keys(&ev.cdb, n),
                19 => sparse_keys(&ev.message, n),
                _ => u64_ints(&ev.cgroup_id, n),
            };
            chunks.push(self.column(name, kind, view, n)?);
        }
        self.groups.push(RowGroupMeta { rows: n as i64, bytes: (self.pos - start) as i64, offset: start as i64, chunks });
        self.rows += n as i64;
        Ok(())
    }

    fn column(&mut self, name: &'static str, kind: Kind, view: View, n: usize) -> std::io::Result<ChunkMeta> {
        let start = self.pos as i64;
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
        match view {
            View::Dense { col } => {
                let all_ok = col.ok.iter().all(|&b| b);
                let vals: Vec<i64> = if all_ok {
                    col.v.clone()
                } else {
                    col.v.iter().zip(&col.ok).filter(|(_, &ok)| ok).map(|(&x, _)| x).collect()
                };
                self.int_pages(&mut meta, &col.ok, &vals, n)?;
            }
            View::Ints { ok, vals, all_ok: _ } => self.int_pages(&mut meta, &ok, &vals, n)?,
            View::Keys { ok, keys, dict } => self.str_pages(&mut meta, ok, &keys, dict, n)?,
            View::SparseKeys { ok, keys, dict } => self.str_pages(&mut meta, &ok, keys, dict, n)?,
        }
        meta.size = self.pos as i64 - start;
        Ok(meta)
    }

    /// Data pages of an integer column; `vals` are the non-null values in row order.
    fn int_pages(&mut self, meta: &mut ChunkMeta, ok: &[bool], vals: &[i64], n: usize) -> std::io::Result<()> {
        let bits = if matches!(meta.kind, Kind::U32 | Kind::I32) { 32 } else { 64 };
        let enc = if vals.is_empty() { PLAIN } else { DELTA_BINARY_PACKED };
        meta.encodings.push(enc);
        if !vals.is_empty() {
            meta.stats = Some(min_max(meta.kind, vals, (n - vals.len()) as i64));
        }
        let mut at = 0usize;
        let mut body = Vec::new();
        for (p, okp) in ok.chunks(PAGE_ROWS).enumerate() {
            let _ = p;
            let k = okp.iter().filter(|&&b| b).count();
            body.clear();
            def_levels(&mut body, okp);
            if k > 0 {
                delta_binary_packed(&mut body, &vals[at..at + k], bits);
            }
            at += k;
            self.data_page(&body, okp.len(), enc)?;
        }
        Ok(())
    }

    /// Dictionary page of the keys used in this row group, then data pages of remapped keys.
    fn str_pages(&mut self, meta: &mut ChunkMeta, ok: &[bool], keys: &[u32], dict: &Dict, n: usize)
        -> std::io::Result<()> {
        let _ = n;
        let mut remap = vec![u32::MAX; dict.values.len()];
        let mut used: Vec<u32> = Vec::new();
        let mut local = Vec::with_capacity(keys.len());
        for &k in keys {
            let r = &mut remap[k as usize];
            if *r == u32::MAX {
                *r = used.len() as u32;
                used.push(k);
            }
            local.push(*r);
        }
        let mut body = Vec::new();
        let enc = if used.is_empty() { PLAIN } else { RLE_DICTIONARY };
        meta.encodings.push(enc);
        if !used.is_empty() {
            meta.encodings.push(PLAIN);
            meta.dict_page_offset = Some(self.pos as i64);
            plain_strings(&mut body, used.iter().map(|&k| dict.values[k as usize].as_str()));
            let mut h = Thrift::default();
            h.i32(1, DICTIONARY_PAGE);
            h.i32(2, body.len() as i32);
            h.i32(3, body.len() as i32);
            h.begin(7);
            h.i32(1, used.len() as i32);
            h.i32(2, PLAIN);
            h.end();
            h.stop();
            self.put(&h.buf)?;
            self.put(&body)?;
        }
        meta.data_page_offset = self.pos as i64;
        let w = bit_width(used.len().saturating_sub(1) as u64);
        let mut at = 0usize;
        for okp in ok.chunks(PAGE_ROWS) {
            let k = okp.iter().filter(|&&b| b).count();
            body.clear();
            def_levels(&mut body, okp);
            if k > 0 {
                body.push(w as u8);
                rle_hybrid(&mut body, &local[at..at + k], w);
            }
            at += k;
            self.data_page(&body, okp.len(), enc)?;
        }
        Ok(())
    }

    fn data_page(&mut self, body: &[u8], values: usize, enc: i32) -> std::io::Result<()> {
        let mut h = Thrift::default();
        h.i32(1, DATA_PAGE);
        h.i32(2, body.len() as i32);
        h.i32(3, body.len() as i32);
        h.begin(5);
        h.i32(1, values as i32);
        h.i32(2, enc);
        h.i32(3, RLE);
        h.i32(4, RLE);
        h.end();
        h.stop();
        self.put(&h.buf)?;
        self.put(body)
    }

    /// Footer (FileMetaData), its length and the closing magic.
    pub fn finish(mut self) -> std::io::Result<u64> {
        let mut t = Thrift::default();
        t.i32(1, 1);
        t.list(2, thrift::STRUCT, SCHEMA.len() + 1);
        t.begin_elem();
        t.binary(4, b"schema");
        t.i32(5, SCHEMA.len() as i32);
        t.end();
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
                t.begin(3);
                t.i32(1, physical(c.kind));
                t.list(2, thrift::I32, c.encodings.len());
                for &e in &c.encodings {
                    t.i32_elem(e);
                }
                t.list(3, thrift::BINARY, 1);
                t.binary_elem(c.name.as_bytes());
                t.i32(4, 0); // UNCOMPRESSED
                t.i64(5, c.num_values);
                t.i64(6, c.size);
                t.i64(7, c.size);
                t.i64(9, c.data_page_offset);
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
        t.stop();
        let len = t.buf.len() as u32;
        self.put(&t.buf)?;
        self.put(&len.to_le_bytes())?;
        self.put(b"PAR1")?;
        self.out.flush()?;
        Ok(self.pos)
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

/// Statistics in the column's sort order (unsigned for UINT_*), as plain little-endian bytes.
fn min_max(kind: Kind, vals: &[i64], nulls: i64) -> (Vec<u8>, Vec<u8>, i64) {
    match kind {
        Kind::U32 => {
            let (lo, hi) = vals.iter().fold((u32::MAX, 0u32), |(a, b), &x| (a.min(x as u32), b.max(x as u32)));
            (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec(), nulls)
        }
        Kind::I32 => {
            let (lo, hi) = vals.iter().fold((i32::MAX, i32::MIN), |(a, b), &x| (a.min(x as i32), b.max(x as i32)));
            (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec(), nulls)
        }
        Kind::U64 => {
            let (lo, hi) = vals.iter().fold((u64::MAX, 0u64), |(a, b), &x| (a.min(x as u64), b.max(x as u64)));
            (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec(), nulls)
        }
        _ => {
            let (lo, hi) = vals.iter().fold((i64::MAX, i64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            (lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec(), nulls)
        }
    }
}
