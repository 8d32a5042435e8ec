//! A Parquet reader for the events files blkscope-native itself writes (parquet.rs), so `reuse` can read a
//! trace without the Python side decoding every event's columns for it: flat schema of OPTIONAL columns,
//! uncompressed v1 data pages, integers DELTA_BINARY_PACKED (or PLAIN), strings RLE_DICTIONARY over a PLAIN
//! dictionary page. Only the columns asked for are read, one column chunk at a time (positioned reads: memory
//! is one chunk). Anything else is refused (Error::Unsupported: the caller has another way to read it);
//! bytes that break the format are Error::Damaged. Both name the file.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::encode::count_true;
use crate::thrift_read::{varint, zigzag, Reader, Value};

const INT64: i64 = 2;
const BYTE_ARRAY: i64 = 6;
const OPTIONAL: i64 = 1;
const PLAIN: i64 = 0;
const PLAIN_DICTIONARY: i64 = 2;
const RLE: i64 = 3;
const DELTA_BINARY_PACKED: i64 = 5;
const RLE_DICTIONARY: i64 = 8;
const DATA_PAGE: i64 = 0;
const DICTIONARY_PAGE: i64 = 2;

#[derive(Debug)]
pub enum Error {
    Unsupported(String),
    Damaged(String),
    Io(std::io::Error),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Error::Unsupported(m) => write!(f, "not a file this reader takes: {m}"),
            Error::Damaged(m) => write!(f, "damaged Parquet: {m}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

type R<T> = Result<T, Error>;

/// One column chunk of a row group: its byte range and the min/max statistics of an INT64 column.
#[derive(Clone, Debug)]
pub struct Chunk {
    start: u64,
    len: u64,
    pub min_max: Option<(i64, i64)>,
}

pub struct ParquetFile {
    pub path: PathBuf,
    file: File,
    /// per row group: its rows and the chunks of the columns asked for at open, in that order
    pub groups: Vec<(usize, Vec<Chunk>)>,
}

/// Column values of one chunk, row by row: `ok` false where null.
#[derive(Default)]
pub struct Ints {
    pub v: Vec<i64>,
    pub ok: Vec<bool>,
}

/// Dictionary keys of one chunk, row by row (u32::MAX where null), and the dictionary.
#[derive(Default)]
pub struct Keys {
    pub k: Vec<u32>,
    pub dict: Vec<Vec<u8>>,
}

impl ParquetFile {
    fn damaged(&self, m: impl std::fmt::Display) -> Error {
        Error::Damaged(format!("{}: {m}", self.path.display()))
    }

    /// Open `path` and check its footer: written by blkscope-native, each of `cols` (name, INT64 or
    /// BYTE_ARRAY) present as a flat OPTIONAL column, uncompressed.
    pub fn open(path: &Path, cols: &[(&str, bool)]) -> R<ParquetFile> {
        let file = File::open(path).map_err(|e| Error::Io(std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))))?;
        let mut pf = ParquetFile { path: path.to_owned(), file, groups: vec![] };
        let size = pf.file.metadata()?.len();
        let mut tail = [0u8; 8];
        if size < 12 {
            return Err(pf.damaged("shorter than a Parquet file"));
        }
        pf.file.read_exact_at(&mut tail, size - 8)?;
        let flen = u32::from_le_bytes(tail[..4].try_into().unwrap()) as u64;
        if &tail[4..] != b"PAR1" || flen + 12 > size {
            return Err(pf.damaged("no Parquet footer"));
        }
        let mut foot = vec![0u8; flen as usize];
        pf.file.read_exact_at(&mut foot, size - 8 - flen)?;
        let meta = Reader::new(&foot).structure().map_err(|e| pf.damaged(format!("footer: {e}")))?;
        let unsupported = |m: String| Error::Unsupported(format!("{}: {m}", path.display()));
        let by = meta.bin(6).unwrap_or(b"");
        if !by.starts_with(b"blkscope-native") {
            return Err(unsupported(format!("written by {:?}, not blkscope-native", String::from_utf8_lossy(by))));
        }
        let schema = meta.list(2);
        let leaves = schema.get(1..).unwrap_or(&[]);
        if leaves.iter().any(|e| e.int(5).is_some()) {
            return Err(unsupported("nested schema".into()));
        }
        let mut idx = vec![];
        for &(name, int) in cols {
            let k = leaves.iter().position(|e| e.bin(4) == Some(name.as_bytes()))
                .ok_or_else(|| unsupported(format!("no column {name}")))?;
            let want = if int { INT64 } else { BYTE_ARRAY };
            if leaves[k].int(1) != Some(want) || leaves[k].int(3) != Some(OPTIONAL) {
                return Err(unsupported(format!("column {name}: not an OPTIONAL {}", if int { "INT64" } else { "BYTE_ARRAY" })));
            }
            idx.push(k);
        }
        for g in meta.list(4) {
            let rows = g.int(3).filter(|&r| r >= 0).ok_or_else(|| pf.damaged("row group without rows"))? as usize;
            let chunks = g.list(1);
            let mut mine = vec![];
            for (&k, &(name, _)) in idx.iter().zip(cols) {
                let c = chunks.get(k).ok_or_else(|| pf.damaged("row group without a column"))?;
                let m = c.field(3).ok_or_else(|| unsupported(format!("column {name}: metadata elsewhere")))?;
                if c.field(1).is_some() {
                    return Err(unsupported(format!("column {name}: in another file")));
                }
                if m.int(4) != Some(0) {
                    return Err(unsupported(format!("column {name}: compressed (codec {:?})", m.int(4))));
                }
                let start = m.int(11).or(m.int(9)).filter(|&s| s >= 4).ok_or_else(|| pf.damaged("bad chunk offset"))?;
                let len = m.int(7).filter(|&l| l >= 0).ok_or_else(|| pf.damaged("bad chunk size"))?;
                if (start + len) as u64 > size - 8 - flen {
                    return Err(pf.damaged(format!("column {name}: chunk past the data")));
                }
                let st = m.field(12);
                let i8 = |id| st.and_then(|s| s.bin(id)).and_then(|b| b.try_into().ok()).map(i64::from_le_bytes);
                let min_max = i8(6).zip(i8(5));
                mine.push(Chunk { start: start as u64, len: len as u64, min_max });
            }
            pf.groups.push((rows, mine));
        }
        Ok(pf)
    }

    /// The pages of chunk `col` of row group `g`: calls `f(header, body)` for each, in order, until the
    /// data pages cover the group's rows.
    fn pages(&self, g: usize, col: usize, buf: &mut Vec<u8>, mut f: impl FnMut(&Value, &[u8]) -> R<usize>) -> R<()> {
        let (rows, chunks) = &self.groups[g];
        let c = &chunks[col];
        buf.resize(c.len as usize, 0);
        self.file.read_exact_at(buf, c.start)?;
        let (mut pos, mut seen) = (0usize, 0usize);
        while seen < *rows {
            let mut r = Reader::new(&buf[pos..]);
            let h = r.structure().map_err(|e| self.damaged(format!("page header: {e}")))?;
            let n = h.int(3).filter(|&n| n >= 0).ok_or_else(|| self.damaged("page size"))? as usize;
            let body = buf.get(pos + r.pos..pos + r.pos + n).ok_or_else(|| self.damaged("page past its chunk"))?;
            if h.int(2) != Some(n as i64) {
                return Err(Error::Unsupported(format!("{}: compressed page", self.path.display())));
            }
            seen += f(&h, body)?;
            pos += r.pos + n;
        }
        if seen != *rows {
            return Err(self.damaged("pages hold more rows than their row group"));
        }
        Ok(())
    }

    /// A data page's definition levels (appended to `ok`) and the rest of its body: (encoding, rows, values
    /// present, values).
    fn levels<'b>(&self, h: &Value, body: &'b [u8], ok: &mut Vec<bool>, tmp: &mut Vec<u32>) -> R<(i64, usize, usize, &'b [u8])> {
        let d = h.field(5).ok_or_else(|| Error::Unsupported(format!("{}: page type {:?}", self.path.display(), h.int(1))))?;
        let rows = d.int(1).filter(|&n| n >= 0).ok_or_else(|| self.damaged("page rows"))? as usize;
        if d.int(3) != Some(RLE) {
            return Err(Error::Unsupported(format!("{}: definition levels not RLE", self.path.display())));
        }
        let len = body.get(..4).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize).ok_or_else(|| self.damaged("levels"))?;
        let lv = body.get(4..4 + len).ok_or_else(|| self.damaged("levels past the page"))?;
        let start = ok.len();
        levels_to_flags(lv, rows, ok, tmp).map_err(|e| self.damaged(e))?;
        let present = count_true(&ok[start..]);
        Ok((d.int(2).unwrap_or(-1), rows, present, &body[4 + len..]))
    }

    /// INT64 column `col` of row group `g`, row by row.
    pub fn ints(&self, g: usize, col: usize, buf: &mut Vec<u8>, out: &mut Ints) -> R<()> {
        out.v.clear();
        out.ok.clear();
        let (mut vals, mut tmp) = (vec![], vec![]);
        self.pages(g, col, buf, |h, body| {
            if h.int(1) != Some(DATA_PAGE) {
                return Err(Error::Unsupported(format!("{}: page type {:?}", self.path.display(), h.int(1))));
            }
            let start = out.ok.len();
            let (enc, rows, present, data) = self.levels(h, body, &mut out.ok, &mut tmp)?;
            if present == rows {
                // every row has a value (the usual case): the values are the rows
                return self.int_values(enc, data, present, &mut out.v).map(|_| rows);
            }
            vals.clear();
            self.int_values(enc, data, present, &mut vals)?;
            // without a branch per row: row i takes value j (0 where null) and j moves on past a value; the
            // 0 pushed last is where j stands after the last value
            vals.push(0);
            let mut j = 0;
            out.v.extend(out.ok[start..].iter().map(|&ok| {
                let x = if ok { vals[j] } else { 0 };
                j += ok as usize;
                x
            }));
            Ok(rows)
        })
    }

    /// BYTE_ARRAY column `col` of row group `g` as dictionary keys.
    pub fn keys(&self, g: usize, col: usize, buf: &mut Vec<u8>, out: &mut Keys) -> R<()> {
        out.k.clear();
        out.dict.clear();
        let (mut ok, mut idx, mut tmp) = (vec![], vec![], vec![]);
        self.pages(g, col, buf, |h, body| {
            if h.int(1) == Some(DICTIONARY_PAGE) {
                let d = h.field(7).ok_or_else(|| self.damaged("dictionary page header"))?;
                if !matches!(d.int(2), Some(PLAIN | PLAIN_DICTIONARY)) {
                    return Err(Error::Unsupported(format!("{}: dictionary encoding {:?}", self.path.display(), d.int(2))));
                }
                let mut p = 0;
                for _ in 0..d.int(1).unwrap_or(0) {
                    let n = body.get(p..p + 4).map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize);
                    let v = n.and_then(|n| body.get(p + 4..p + 4 + n)).ok_or_else(|| self.damaged("dictionary"))?;
                    out.dict.push(v.to_vec());
                    p += 4 + v.len();
                }
                return Ok(0);
            }
            if h.int(1) != Some(DATA_PAGE) {
                return Err(Error::Unsupported(format!("{}: page type {:?}", self.path.display(), h.int(1))));
            }
            ok.clear();
            let (enc, rows, present, data) = self.levels(h, body, &mut ok, &mut tmp)?;
            if present == rows {
                return self.key_values(enc, data, present, out.dict.len(), &mut out.k).map(|_| rows);
            }
            idx.clear();
            self.key_values(enc, data, present, out.dict.len(), &mut idx)?;
            let mut it = idx.iter();
            out.k.extend(ok.iter().map(|&ok| if ok { *it.next().unwrap() } else { u32::MAX }));
            Ok(rows)
        })
    }
}

impl ParquetFile {
    /// `present` INT64 values of a data page, appended to dst.
    fn int_values(&self, enc: i64, data: &[u8], present: usize, dst: &mut Vec<i64>) -> R<()> {
        match enc {
            DELTA_BINARY_PACKED => delta(data, present, dst).map_err(|e| self.damaged(e)),
            PLAIN => {
                let b = data.get(..present * 8).ok_or_else(|| self.damaged("values past the page"))?;
                dst.extend(b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())));
                Ok(())
            }
            e => Err(Error::Unsupported(format!("{}: integer encoding {e}", self.path.display()))),
        }
    }

    /// `present` dictionary keys of a data page, appended to dst.
    fn key_values(&self, enc: i64, data: &[u8], present: usize, dict: usize, dst: &mut Vec<u32>) -> R<()> {
        if present == 0 {
            return Ok(());
        }
        if !matches!(enc, RLE_DICTIONARY | PLAIN_DICTIONARY) {
            return Err(Error::Unsupported(format!("{}: string encoding {enc}", self.path.display())));
        }
        let w = *data.first().ok_or_else(|| self.damaged("no bit width"))? as u32;
        if w > 32 {
            return Err(self.damaged("bit width"));
        }
        let at = dst.len();
        hybrid(&data[1..], w, present, dst).map_err(|e| self.damaged(e))?;
        if dst[at..].iter().fold(0, |m, &k| m.max(k)) as usize >= dict {
            return Err(self.damaged("key past the dictionary"));
        }
        Ok(())
    }
}

/// `w` bits at bit `bit` of `d` (little-endian bit order); the bits must lie within d.
#[inline(always)]
fn bits(d: &[u8], bit: usize, w: u32) -> u64 {
    let (b, sh) = (bit / 8, (bit % 8) as u32);
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    if w + sh <= 64 && b + 8 <= d.len() {
        return (u64::from_le_bytes(d[b..b + 8].try_into().unwrap()) >> sh) & mask;
    }
    let mut x = [0u8; 16];
    let n = (d.len() - b).min(16);
    x[..n].copy_from_slice(&d[b..b + n]);
    ((u128::from_le_bytes(x) >> sh) as u64) & mask
}

/// The first `n` values of `w` bits packed in `d` from bit `base` on, to `f`. Values whose 8-byte load stays
/// within d take the fast path (no copy, no bounds branch per bit); the last few go through `bits`.
#[inline(always)]
fn unpack_from(d: &[u8], base: usize, w: u32, n: usize, mut f: impl FnMut(u64)) {
    let w = w as usize;
    if w == 0 {
        (0..n).for_each(|_| f(0));
        return;
    }
    // value i is fast while (base + i * w) / 8 + 8 <= len and w + 7 <= 64
    let room = (d.len().saturating_sub(8) * 8).saturating_sub(base);
    let fast = if w <= 57 && d.len() >= 8 && base <= d.len().saturating_sub(8) * 8 { (room / w + 1).min(n) } else { 0 };
    let mask = ((1u64 << w.min(63)) - 1) | (((w == 64) as u64) << 63);
    for i in 0..fast {
        let bit = base + i * w;
        // SAFETY: bit / 8 + 8 <= d.len() for i < fast (above)
        let x = unsafe { std::ptr::read_unaligned(d.as_ptr().add(bit / 8) as *const u64) };
        f((u64::from_le(x) >> (bit % 8)) & mask);
    }
    for i in fast..n {
        f(bits(d, base + i * w, w as u32));
    }
}

/// Definition levels (hybrid of width 1) of `n` rows as flags appended to `ok`: a run of equal levels (a
/// page without nulls is one) as one fill, not a value at a time.
fn levels_to_flags(d: &[u8], n: usize, ok: &mut Vec<bool>, tmp: &mut Vec<u32>) -> Result<(), String> {
    let end = ok.len() + n;
    let mut p = 0;
    while ok.len() < end {
        let h = varint(d, &mut p)?;
        if h & 1 == 0 {
            let v = *d.get(p).ok_or("RLE run past the page")?;
            let run = ((h >> 1) as usize).min(end - ok.len());
            if run == 0 {
                return Err("empty RLE run".into());
            }
            ok.resize(ok.len() + run, v == 1);
            p += 1;
        } else {
            // a bit-packed run: through the general decoder
            let groups = (h >> 1) as usize;
            let take = (groups * 8).min(end - ok.len());
            tmp.clear();
            let mut hdr = vec![];
            crate::thrift::varint(&mut hdr, h);
            hdr.extend_from_slice(d.get(p..p + groups).ok_or("bit-packed run past the page")?);
            hybrid(&hdr, 1, take, tmp)?;
            ok.extend(tmp.iter().map(|&l| l == 1));
            p += groups;
        }
    }
    Ok(())
}

/// RLE/bit-packed hybrid of width `w` (no length prefix): appends `n` values to out.
pub fn hybrid(d: &[u8], w: u32, n: usize, out: &mut Vec<u32>) -> Result<(), String> {
    let end = out.len() + n;
    let mut p = 0;
    while out.len() < end {
        let h = varint(d, &mut p)?;
        if h & 1 == 1 {
            let vals = (h >> 1) as usize * 8;
            let nbytes = (h >> 1) as usize * w as usize;
            d.get(p..p + nbytes).ok_or("bit-packed run past the page")?;
            let take = vals.min(end - out.len());
            out.reserve(take);
            let rest = &d[p..];
            let mut done = 0;
            if (1..=8).contains(&w) {
                // narrow keys (dictionary keys, levels): a group of 8 values is w <= 8 bytes, one load
                // group g's 8-byte load stays within the page while g * w + 8 <= len
                let full = if rest.len() >= 8 { (take / 8).min((rest.len() - 8) / w as usize + 1) } else { 0 };
                let mask = (1u64 << w) - 1;
                for g in 0..full {
                    let b = g * w as usize;
                    let x = u64::from_le_bytes(rest[b..b + 8].try_into().unwrap());
                    out.extend((0..8).map(|k| ((x >> (k * w)) & mask) as u32));
                }
                done = full * 8;
            }
            // the rest of the page, not the run alone: loads may read past the run's end (fast path)
            let base = done * w as usize;
            unpack_from(rest, base, w, take - done, |v| out.push(v as u32));
            p += nbytes;
        } else {
            let vb = w.div_ceil(8) as usize;
            let b = d.get(p..p + vb).ok_or("RLE run past the page")?;
            let v = b.iter().rev().fold(0u32, |a, &x| (a << 8) | x as u32);
            let run = ((h >> 1) as usize).min(end - out.len());
            if run == 0 {
                return Err("empty RLE run".into());
            }
            out.extend(std::iter::repeat_n(v, run));
            p += vb;
        }
    }
    Ok(())
}

/// DELTA_BINARY_PACKED of `n` INT64 values, appended to out.
pub fn delta(d: &[u8], n: usize, out: &mut Vec<i64>) -> Result<(), String> {
    let mut p = 0;
    let block = varint(d, &mut p)? as usize;
    let minis = varint(d, &mut p)? as usize;
    let total = varint(d, &mut p)? as usize;
    let mut v = zigzag(d, &mut p)?;
    if block == 0 || block % 128 != 0 || minis == 0 || block % minis != 0 || (block / minis) % 32 != 0 {
        return Err(format!("delta block {block} in {minis} miniblocks"));
    }
    if total != n {
        return Err(format!("delta page of {total} values where the levels say {n}"));
    }
    if n == 0 {
        return Ok(());
    }
    let per = block / minis;
    let end = out.len() + n;
    out.reserve(n);
    out.push(v);
    let mut vals = [0u64; 32];
    while out.len() < end {
        let min = zigzag(d, &mut p)?;
        let wp = p;
        d.get(p..p + minis).ok_or("delta block past the page")?;
        p += minis;
        for m in 0..minis {
            if out.len() >= end {
                break;
            }
            let w = d[wp + m] as usize;
            if w > 64 {
                return Err(format!("delta bit width {w}"));
            }
            let nbytes = per * w / 8;
            d.get(p..p + nbytes).ok_or("miniblock past the page")?;
            // groups of 32 values (4w bytes each), each unpacked whole by a loop of its width, then summed
            for g in 0..per / 32 {
                let take = 32.min(end - out.len());
                if take == 0 {
                    break;
                }
                // the rest of the page from this group on: loads may read past the group while within it
                unpack32(&d[p + g * 4 * w..], w, &mut vals);
                let dst = &mut out.spare_capacity_mut()[..take];
                for (o, &x) in dst.iter_mut().zip(&vals[..take]) {
                    v = v.wrapping_add(min).wrapping_add(x as i64);
                    o.write(v);
                }
                // SAFETY: take values written above, within the capacity reserved for n
                unsafe { out.set_len(out.len() + take) };
            }
            p += nbytes;
        }
    }
    Ok(())
}

/// 32 values of `W` bits packed at the start of `d` (4W bytes, little-endian bit order), to out: every value
/// one unaligned load (two above 56 bits) and no bounds check, from `d` itself when it holds 16 bytes past
/// the group, else from a padded copy (a page's last group).
#[inline(always)]
fn unpack32_w<const W: usize>(d: &[u8], out: &mut [u64; 32]) {
    if W == 0 {
        *out = [0; 32];
        return;
    }
    if d.len() >= 4 * W + 16 {
        return unpack32_in::<W>(&d[..4 * W + 16], out);
    }
    let mut b = [0u8; 4 * 64 + 16];
    b[..4 * W].copy_from_slice(&d[..4 * W]);
    unpack32_in::<W>(&b[..4 * W + 16], out)
}

#[inline(always)]
fn unpack32_in<const W: usize>(b: &[u8], out: &mut [u64; 32]) {
    let mask = if W == 64 { u64::MAX } else { (1u64 << W) - 1 };
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * W;
        let (at, sh) = (bit / 8, bit % 8);
        let x = if W <= 56 {
            u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) >> sh
        } else {
            (u128::from_le_bytes(b[at..at + 16].try_into().unwrap()) >> sh) as u64
        };
        *o = x & mask;
    }
}

/// `unpack32_w` for a width known at run time (0..=64).
fn unpack32(d: &[u8], w: usize, out: &mut [u64; 32]) {
    macro_rules! widths {
        ($($w:literal)*) => {
            match w {
                $($w => unpack32_w::<$w>(d, out),)*
                _ => unreachable!("bit width {w}"),
            }
        };
    }
    widths!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{delta_binary_packed, rle_hybrid};

    /// A small deterministic generator (no rand dependency).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *seed
    }

    #[test]
    fn delta_decodes_what_the_writer_encodes() {
        let mut seed = 7;
        let mut cases: Vec<Vec<i64>> = [(0usize, 0u32), (1, 0), (2, 3), (129, 10), (1000, 40), (5000, 63), (777, 64)]
            .map(|(n, spread)| (0..n).map(|_| {
                let x = lcg(&mut seed);
                if spread == 64 { x as i64 } else { (x >> (64 - spread.max(1))) as i64 - (1 << spread.max(1) >> 1) }
            }).collect()).into();
        // steps 300 values apart: blocks of one value (the writer's shortcut), some the value before them
        // and some not (the block right after a step, whose first delta is the step)
        cases.push((0..1000).map(|i| i / 300 * 7 - 5).collect());
        cases.push((0..1000).map(|i| 3 - (i / 129 % 2) * i64::MAX).collect());
        for vals in cases {
            let n = vals.len();
            let mut buf = vec![];
            let stats = delta_binary_packed(&mut buf, &vals, 64);
            assert_eq!(stats, vals.iter().min().copied().zip(vals.iter().max().copied()), "{n} values");
            let mut got = vec![];
            delta(&buf, n, &mut got).unwrap();
            assert_eq!(got, vals, "{n} values");
            if n > 0 {
                assert_eq!(delta_reference(&buf, n), vals, "{n} values");
            }
        }
    }

    /// DELTA_BINARY_PACKED decoded one bit at a time, as the format describes it.
    fn delta_reference(d: &[u8], n: usize) -> Vec<i64> {
        let mut p = 0;
        let block = varint(d, &mut p).unwrap() as usize;
        let minis = varint(d, &mut p).unwrap() as usize;
        let _total = varint(d, &mut p).unwrap();
        let mut v = zigzag(d, &mut p).unwrap();
        let per = block / minis;
        let mut out = vec![v];
        while out.len() < n {
            let min = zigzag(d, &mut p).unwrap();
            let widths = d[p..p + minis].to_vec();
            p += minis;
            for &w in &widths {
                for i in 0..per {
                    if out.len() >= n {
                        break;
                    }
                    let mut x = 0u64;
                    for k in 0..w as usize {
                        let bit = i * w as usize + k;
                        x |= (((d[p + bit / 8] >> (bit % 8)) & 1) as u64) << k;
                    }
                    v = v.wrapping_add(min).wrapping_add(x as i64);
                    out.push(v);
                }
                if out.len() < n {
                    p += per * w as usize / 8;
                }
            }
        }
        out
    }

    #[test]
    fn delta_decodes_every_bit_width() {
        // hand-made pages: every width 0..=64 in a miniblock, negative and positive min deltas, miniblocks
        // of 32 and 64 values, a partial last miniblock and unused widths after the last value
        let mut seed = 3;
        for (block, minis) in [(128usize, 4usize), (256, 4), (128, 1)] {
            let per = block / minis;
            for w in 0..=64u8 {
                for n in [1usize, 2, 33, 1 + block, 1 + block + per + 5, 3 * block - 7] {
                    let mut d = vec![];
                    crate::thrift::varint(&mut d, block as u64);
                    crate::thrift::varint(&mut d, minis as u64);
                    crate::thrift::varint(&mut d, n as u64);
                    let first = lcg(&mut seed) as i64;
                    crate::thrift::varint(&mut d, ((first << 1) ^ (first >> 63)) as u64);
                    let mut left = n - 1;
                    let mut b = 0;
                    while left > 0 {
                        let min: i64 = match b % 3 { 0 => -(lcg(&mut seed) as i64 >> 20), 1 => 12345, _ => i64::MIN / 3 };
                        crate::thrift::varint(&mut d, ((min << 1) ^ (min >> 63)) as u64);
                        // this width, a neighbour, and garbage widths past the last value
                        let ws: Vec<u8> = (0..minis).map(|m| {
                            if m * per >= left { 0xee } else if m % 2 == 0 { w } else { (w + 7) % 65 }
                        }).collect();
                        d.extend_from_slice(&ws);
                        for &mw in &ws {
                            if mw > 64 {
                                break;
                            }
                            d.extend((0..per * mw as usize / 8).map(|_| lcg(&mut seed) as u8));
                        }
                        left = left.saturating_sub(block);
                        b += 1;
                    }
                    let want = delta_reference(&d, n);
                    let mut got = vec![-1];
                    delta(&d, n, &mut got).unwrap();
                    assert_eq!(&got[1..], &want[..], "width {w}, {n} values, block {block}/{minis}");
                }
            }
        }
    }

    #[test]
    fn hybrid_decodes_what_the_writer_encodes() {
        let mut seed = 11;
        for w in [1u32, 2, 3, 5, 8, 13, 20, 32] {
            for n in [1usize, 7, 8, 9, 100, 4099] {
                // runs and noise, so both RLE and bit-packed runs occur
                let vals: Vec<u32> = (0..n).map(|i| {
                    let x = lcg(&mut seed) as u32;
                    let v = if (i / 40) % 2 == 0 { 1 } else { x };
                    if w == 32 { v } else { v & ((1 << w) - 1) }
                }).collect();
                let mut buf = vec![];
                rle_hybrid(&mut buf, &vals, w);
                let mut got = vec![];
                hybrid(&buf, w, n, &mut got).unwrap();
                assert_eq!(got, vals, "{n} values of {w} bits");
            }
        }
    }

    #[test]
    fn reads_back_the_sample_table() {
        // parquet-sample: nulls, several row groups and pages, dictionary strings
        let dir = std::env::temp_dir().join(format!("blkscope-pr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("events.parquet");
        let rows = 300_000;
        let mut sink = crate::sink::Sink::with_group(&path, 70_000).unwrap();
        crate::sample::write(&mut sink, rows).unwrap();
        sink.finish().unwrap();
        let f = ParquetFile::open(&path, &[("time_ns", true), ("sector", true), ("action", false)]).unwrap();
        assert_eq!(f.groups.len(), 5);
        let actions = ["Q", "G", "I", "D", "C", "P", "U", "m"];
        let (mut buf, mut t, mut s, mut a) = (vec![], Ints::default(), Ints::default(), Keys::default());
        let mut i = 0usize;
        for g in 0..f.groups.len() {
            f.ints(g, 0, &mut buf, &mut t).unwrap();
            f.ints(g, 1, &mut buf, &mut s).unwrap();
            f.keys(g, 2, &mut buf, &mut a).unwrap();
            assert_eq!(f.groups[g].1[0].min_max, Some((t.v[0], *t.v.last().unwrap())));
            for r in 0..t.v.len() {
                let act = actions[(i * 7 + i / 3) % actions.len()];
                assert_eq!(t.v[r], (i as i64) * 1733 - 5000 + (i as i64 % 17) * 3);
                assert_eq!(a.dict[a.k[r] as usize], act.as_bytes());
                let null = matches!(act, "P" | "U" | "m");
                assert_eq!(s.ok[r], !null, "row {i}");
                if !null {
                    assert_eq!(s.v[r], ((i as i64) * 2_654_435_761) % (1 << 40));
                }
                i += 1;
            }
        }
        assert_eq!(i, rows);
        // a file this reader does not take, and a damaged one: each named
        let other = dir.join("other.parquet");
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes.len() - 8 - u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap()) as usize;
        let by = bytes[at..].windows(15).position(|w| w == b"blkscope-native").unwrap() + at;
        bytes[by..by + 8].copy_from_slice(b"polars!!");
        std::fs::write(&other, &bytes).unwrap();
        let e = ParquetFile::open(&other, &[("time_ns", true)]).err().unwrap();
        assert!(matches!(e, Error::Unsupported(ref m) if m.contains("other.parquet")), "{e}");
        let short = dir.join("short.parquet");
        std::fs::write(&short, &std::fs::read(&path).unwrap()[..1000]).unwrap();
        let e = ParquetFile::open(&short, &[("time_ns", true)]).err().unwrap();
        assert!(matches!(e, Error::Damaged(ref m) if m.contains("short.parquet")), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
