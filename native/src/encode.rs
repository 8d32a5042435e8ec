//! Parquet value encodings: RLE/bit-packed hybrid (definition levels, dictionary keys) and
//! DELTA_BINARY_PACKED (integers). Bits are packed least significant first, as the format says.

use crate::parquet::Int;
use crate::thrift::{varint, zigzag};

pub fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Pack `vals` (each < 2^w) into `out`, LSB first; vals.len() * w must be a multiple of 8.
/// Whole groups of 32 go through a packer specialised for their width (shifts known at compile time).
#[inline]
fn pack<T: Copy + Into<u64>>(out: &mut Vec<u8>, vals: &[T], w: u32) {
    if w == 0 {
        return;
    }
    let mut groups = vals.chunks_exact(32);
    let mut buf = [0u64; 32];
    for g in groups.by_ref() {
        for (b, &v) in buf.iter_mut().zip(g) {
            *b = v.into();
        }
        pack32(out, &buf, w);
    }
    let rest = groups.remainder();
    if rest.len() % 8 == 0 {
        // whole bytes (the hybrid's groups of 8): zero-padded to 32 through the fast packer, cut back
        for (b, &v) in buf.iter_mut().zip(rest) {
            *b = v.into();
        }
        buf[rest.len()..].fill(0);
        let keep = out.len() + rest.len() * w as usize / 8;
        pack32(out, &buf, w);
        out.truncate(keep);
    } else {
        pack_slow(out, rest, w);
    }
}

fn pack_slow<T: Copy + Into<u64>>(out: &mut Vec<u8>, vals: &[T], w: u32) {
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    for &v in vals {
        acc |= (v.into() as u128) << bits;
        bits += w;
        if bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    out.extend_from_slice(&(acc as u64).to_le_bytes()[..bits.div_ceil(8) as usize]);
}

/// 32 values of width W: every value's word and shift are constants once the loop is unrolled. The
/// 4 * W bytes go out in one copy (a push per word, with its capacity check, cost more than the shifts).
#[inline(always)]
fn pack32_w<const W: usize>(out: &mut Vec<u8>, vals: &[u64; 32]) {
    let mut words = [0u64; 33];
    // spelled out for each of the 32 values (the loop was left rolled for most widths: word index, shift
    // and straddle test computed at run time, ~7 instructions a value; unrolled they are constants)
    macro_rules! put {
        ($($i:literal)*) => {$({
            let (wi, sh) = ($i * W / 64, $i * W % 64);
            words[wi] |= vals[$i] << sh;
            if sh + W > 64 {
                words[wi + 1] |= vals[$i] >> ((64 - sh) & 63);
            }
        })*};
    }
    put!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    // to_le: the words' in-memory bytes are then the LSB-first stream on any target
    for w in &mut words {
        *w = w.to_le();
    }
    let len = 4 * W; // 32 * W bits
    out.reserve(len);
    // SAFETY: `reserve` made room for `len` more bytes after out.len(); `words` holds 33 * 8 >= 4 * 64
    // bytes, so the `len` bytes read from it are in bounds; u8 has no alignment or validity demands.
    // (A safe extend_from_slice was an outlined call per 32 values: 5% of the writer's instructions.)
    unsafe {
        std::ptr::copy_nonoverlapping(words.as_ptr() as *const u8, out.as_mut_ptr().add(out.len()), len);
        out.set_len(out.len() + len);
    }
}

macro_rules! pack32_dispatch {
    ($out:ident, $vals:ident, $w:ident; $($n:literal)*) => {
        match $w {
            $($n => pack32_w::<$n>($out, $vals),)*
            _ => unreachable!("bit width {}", $w),
        }
    };
}

fn pack32(out: &mut Vec<u8>, vals: &[u64; 32], w: u32) {
    pack32_dispatch!(out, vals, w; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
        30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64)
}

/// RLE/bit-packed hybrid of `vals` with bit width `w` (no length prefix). Uniform groups of 8 become
/// RLE runs, the rest bit-packed runs; only the last group may be short (padded; readers count values).
/// Runs start and end on multiples of 8, so the scans below step a group at a time.
#[cfg(test)]
pub fn rle_hybrid(out: &mut Vec<u8>, vals: &[u32], w: u32) {
    rle_hybrid_keys(out, vals, w, None)
}

/// `rle_hybrid` of `remap[v]` for each v of `vals` (of `vals` itself without `remap`). The runs are found
/// on `vals`: a remap is one-to-one on the keys present (a row group's keys renumbered into the ones it
/// uses), so a group is uniform before it exactly when after it, and each value is remapped as it is
/// written (no remapped copy of the column). Keys of up to 8 bits (action, rwbs, most process columns) go
/// through a packer specialised for their width: a group of 8 keys is one u64 of W bytes, no widening to
/// u64 arrays of 32 (what `pack` does for the integer columns).
/// `remap` is a power of two long (looked up at `k & (len - 1)`, which is k: no bounds check per key).
pub fn rle_hybrid_keys(out: &mut Vec<u8>, vals: &[u32], w: u32, remap: Option<&[u32]>) {
    let remap = remap.map(|m| {
        assert!(m.len().is_power_of_two(), "remap of {} keys", m.len());
        let mask = m.len() - 1;
        // SAFETY: k & mask <= mask < m.len()
        move |k: u32| unsafe { *m.get_unchecked(k as usize & mask) }
    });
    macro_rules! narrow {
        ($($n:literal)*) => {
            match (w, remap) {
                $(($n, Some(m)) => return runs(out, vals, ($n as usize).min(1), m, |o, s| pack_narrow::<$n>(o, s, m)),
                  ($n, None) => return runs(out, vals, ($n as usize).min(1), |k| k, |o, s| pack_narrow::<$n>(o, s, |k| k)),)*
                _ => {}
            }
        };
    }
    narrow!(0 1 2 3 4 5 6 7 8);
    let vbytes = w.div_ceil(8) as usize;
    let map = |k: u32| remap.map_or(k, |m| m(k));
    runs(out, vals, vbytes, map, |o, s| {
        let groups = s.len().div_ceil(8);
        if remap.is_none() && s.len() == groups * 8 {
            pack(o, s, w);
        } else {
            let mut last: Vec<u32> = s.iter().map(|&k| map(k)).collect();
            last.resize(groups * 8, 0);
            pack(o, &last, w);
        }
    })
}

/// The runs of the hybrid: `map(v)` of an RLE run's value in `vbytes` bytes; `packed` writes the groups
/// of a bit-packed run (`vals[i..j]`, the last group zero-padded when short).
#[inline(always)]
fn runs(out: &mut Vec<u8>, vals: &[u32], vbytes: usize, map: impl Fn(u32) -> u32,
        mut packed: impl FnMut(&mut Vec<u8>, &[u32])) {
    let n = vals.len();
    let full = n / 8; // groups of 8 (a shorter last one is never uniform)
    let uniform = |g: usize| g < full && group_uniform(&vals[g * 8..g * 8 + 8]);
    let mut g = 0;
    while g * 8 < n {
        let i = g * 8;
        let mut h = g + 1;
        if uniform(g) {
            let v = vals[i];
            while uniform(h) && vals[h * 8] == v {
                h += 1;
            }
            let mut j = h * 8;
            if h == full {
                // equal values up to the very end join the run (the short last group included)
                let tail = vals[j..].iter().take_while(|&&x| x == v).count();
                if j + tail == n {
                    j = n;
                    h = n.div_ceil(8); // the short last group is taken
                }
            }
            varint(out, ((j - i) as u64) << 1);
            out.extend_from_slice(&map(v).to_le_bytes()[..vbytes]);
        } else {
            while h * 8 < n && !uniform(h) {
                h += 1;
            }
            let j = (h * 8).min(n);
            let groups = (j - i).div_ceil(8);
            varint(out, ((groups as u64) << 1) | 1);
            packed(out, &vals[i..j]);
        }
        g = h;
    }
}

/// Bit-pack `s` (each `map(k)` < 2^W, W <= 8) in groups of 8, the last one zero-padded: each group is
/// the low W bytes of one u64.
#[inline(always)]
fn pack_narrow<const W: usize>(out: &mut Vec<u8>, s: &[u32], map: impl Fn(u32) -> u32) {
    let group = |g: &[u32]| g.iter().enumerate().fold(0u64, |acc, (i, &k)| acc | ((map(k) as u64) << (i * W)));
    let groups = s.len().div_ceil(8);
    out.reserve(groups * W + 8);
    let mut p = out.len();
    let base = out.as_mut_ptr();
    let mut put = |acc: u64| {
        // SAFETY: p + 8 <= out.len() + groups * W + 8, within the room reserved above (each group moves
        // p on by W; the 8-byte store's last 8 - W bytes are overwritten by the next group or cut below)
        unsafe { (base.add(p) as *mut [u8; 8]).write_unaligned(acc.to_le_bytes()) };
        p += W;
    };
    let mut it = s.chunks_exact(8);
    for g in it.by_ref() {
        put(group(g));
    }
    if !it.remainder().is_empty() {
        put(group(it.remainder())); // padding: the missing keys are 0, not map(0)
    }
    // SAFETY: the bytes up to p were written above
    unsafe { out.set_len(p) };
}

/// All 8 values equal: a fold without early exit, which compiles to two vector compares.
#[inline(always)]
fn group_uniform(g: &[u32]) -> bool {
    g.iter().fold(true, |a, &x| a & (x == g[0]))
}

/// Whether every flag is set / any is (memchr: vectorised, unlike a short-circuiting loop).
#[inline]
pub fn all_true(ok: &[bool]) -> bool {
    memchr::memchr(0, bytes(ok)).is_none()
}
#[inline]
pub fn any_true(ok: &[bool]) -> bool {
    memchr::memchr(1, bytes(ok)).is_some()
}
#[inline]
pub fn count_true(ok: &[bool]) -> usize {
    bytes(ok).chunks(255).map(|c| c.iter().fold(0u8, |a, &b| a + b) as usize).sum()
}
fn bytes(ok: &[bool]) -> &[u8] {
    // SAFETY: a bool is one byte holding 0 or 1
    unsafe { std::slice::from_raw_parts(ok.as_ptr() as *const u8, ok.len()) }
}

/// Definition levels of `rows` rows that all have a value: one RLE run.
pub fn def_levels_all(out: &mut Vec<u8>, rows: usize) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    varint(out, (rows as u64) << 1);
    out.push(1);
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Definition levels (1 = value present) as a length-prefixed RLE hybrid of width 1.
pub fn def_levels(out: &mut Vec<u8>, ok: &[bool]) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let all = all_true(ok);
    if all || !any_true(ok) {
        varint(out, (ok.len() as u64) << 1);
        out.push(all as u8);
    } else {
        // one bit-packed run: 8 levels per byte
        varint(out, ((ok.len().div_ceil(8) as u64) << 1) | 1);
        let mut it = ok.chunks_exact(8);
        out.extend(it.by_ref().map(|g| bools_to_bits(g.try_into().unwrap())));
        let rest = it.remainder();
        if !rest.is_empty() {
            out.push(rest.iter().rev().fold(0u8, |acc, &b| (acc << 1) | b as u8));
        }
    }
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// The bytes of `def_levels` for `n` rows of which only `have` (ascending rows, numbered from `first`)
/// have a value, without making a flag per row.
pub fn def_levels_sparse(out: &mut Vec<u8>, have: &[u32], first: usize, n: usize) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    if have.len() == n || have.is_empty() {
        varint(out, (n as u64) << 1);
        out.push((have.len() == n) as u8);
    } else {
        varint(out, ((n.div_ceil(8) as u64) << 1) | 1);
        let bits = out.len();
        out.resize(bits + n.div_ceil(8), 0);
        for &r in have {
            let i = r as usize - first;
            out[bits + i / 8] |= 1 << (i % 8);
        }
    }
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Eight 0/1 bytes -> one byte, the first in the lowest bit: a multiply gathers the low bits into the
/// top byte, b_i landing on bit i (no carries: checked for all 256 inputs).
#[inline(always)]
fn bools_to_bits(g: &[bool; 8]) -> u8 {
    let x = u64::from_le_bytes(g.map(|b| b as u8));
    (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

const BLOCK: usize = 128;
const MINI: usize = 32;

/// DELTA_BINARY_PACKED of `vals`, read as integers of `bits` (32 or 64) bits with wrapping deltas:
/// blocks of 128 values in 4 miniblocks of 32. Returns the least and greatest value in T's order (the
/// column's statistics), found block by block as the deltas are: a row group's columns (~8 MB) do not stay
/// in L2, and separate min and max passes before this one read each column from L3 twice more
/// (bench/RESULTS.md, sixteenth session). None for no values.
pub fn delta_binary_packed<T: Int>(out: &mut Vec<u8>, vals: &[T], bits: u32) -> Option<(T, T)> {
    if bits == 32 {
        delta::<32, T>(out, vals)
    } else {
        delta::<64, T>(out, vals)
    }
}

#[inline(always)]
fn wrap<const BITS: u32>(x: i64) -> i64 {
    if BITS == 32 {
        x as i32 as i64
    } else {
        x
    }
}

fn delta<const BITS: u32, T: Int>(out: &mut Vec<u8>, vals: &[T]) -> Option<(T, T)> {
    varint(out, BLOCK as u64);
    varint(out, (BLOCK / MINI) as u64);
    varint(out, vals.len() as u64);
    varint(out, zigzag(vals.first().map(|v| wrap::<BITS>(v.i64())).unwrap_or(0)));
    let &first = vals.first()?;
    let (mut lo, mut hi) = (first, first);
    let mask: u64 = if BITS == 32 { 0xFFFF_FFFF } else { u64::MAX };
    // worst case: every value at full width, plus a block header (min delta varint, 4 widths) per block
    out.reserve((vals.len() - 1) * BITS as usize / 8 + (vals.len() / BLOCK + 1) * (10 + BLOCK / MINI));
    let mut deltas = [0i64; BLOCK];
    let mut rel = [0u64; MINI];
    for (b, block) in vals[1..].chunks(BLOCK).enumerate() {
        let n = block.len();
        // separate min and max folds vectorise (a tuple fold does not); the block is in L1 by now
        let before = vals[b * BLOCK];
        let bl = block.iter().fold(before, |a, &x| a.min(x));
        let bh = block.iter().fold(before, |a, &x| a.max(x));
        (lo, hi) = (lo.min(bl), hi.max(bh));
        if bl == bh {
            // every value the one before the block (a constant column: device, error, CPU of a per-CPU
            // file ...): zero min delta and zero widths, the bytes the arithmetic below would write
            out.extend_from_slice(&[0u8; 1 + BLOCK / MINI]);
            continue;
        }
        // each delta from the value before it (vals[1..] shifted by one), not from a running `prev`:
        // no loop-carried dependency, so the subtraction and the min below vectorise
        let prev = &vals[b * BLOCK..b * BLOCK + n];
        for ((d, &v), &p) in deltas.iter_mut().zip(block).zip(prev) {
            *d = wrap::<BITS>(v.i64().wrapping_sub(p.i64()));
        }
        let min = deltas[..n].iter().fold(i64::MAX, |a, &d| a.min(d));
        varint(out, zigzag(min));
        let widths_at = out.len();
        out.extend_from_slice(&[0u8; BLOCK / MINI]);
        for (m, part) in deltas[..n].chunks(MINI).enumerate() {
            let mut max = 0u64;
            for (r, &d) in rel.iter_mut().zip(part) {
                *r = (d.wrapping_sub(min) as u64) & mask;
                max |= *r;
            }
            if part.len() < MINI {
                rel[part.len()..].fill(0); // (a call to memset even when empty: 1.9 M times on the bench set)
            }
            let w = bit_width(max);
            out[widths_at + m] = w as u8;
            pack32(out, &rel, w);
        }
    }
    Some((lo, hi))
}

/// PLAIN byte arrays (a dictionary page): 4-byte little-endian length, then the bytes.
pub fn plain_strings<'a>(out: &mut Vec<u8>, vals: impl Iterator<Item = &'a str>) {
    for s in vals {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode the hybrid back (reference decoder, straight from the format description).
    fn unhybrid(mut b: &[u8], w: u32, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let rd = |b: &mut &[u8]| {
            let (mut v, mut s) = (0u64, 0);
            loop {
                let x = b[0];
                *b = &b[1..];
                v |= ((x & 0x7f) as u64) << s;
                s += 7;
                if x < 0x80 {
                    return v;
                }
            }
        };
        while out.len() < n {
            let h = rd(&mut b);
            if h & 1 == 0 {
                let k = w.div_ceil(8) as usize;
                let mut v = [0u8; 4];
                v[..k].copy_from_slice(&b[..k]);
                b = &b[k..];
                out.extend(std::iter::repeat_n(u32::from_le_bytes(v), (h >> 1) as usize));
            } else {
                let cnt = (h >> 1) as usize * 8;
                let bytes = cnt * w as usize / 8;
                for i in 0..cnt {
                    let mut x = 0u32;
                    for j in 0..w as usize {
                        let bit = i * w as usize + j;
                        x |= (((b[bit / 8] >> (bit % 8)) & 1) as u32) << j;
                    }
                    out.push(x);
                }
                b = &b[bytes..];
            }
        }
        assert!(b.is_empty(), "bytes after the last run");
        out.truncate(n);
        out
    }


    #[test]
    fn hybrid_round_trips_random_runs() {
        let mut x = 12345u64;
        for t in 0..20000 {
            let n = (t % 97) + 1;
            let mut vals = Vec::new();
            while vals.len() < n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let v = ((x >> 33) % 3) as u32;
                let r = ((x >> 40) % 12) as usize + 1;
                vals.extend(std::iter::repeat_n(v, r));
            }
            vals.truncate(n);
            let mut out = Vec::new();
            rle_hybrid(&mut out, &vals, 2);
            assert_eq!(unhybrid(&out, 2, n), vals);
        }
    }
    #[test]
    fn remapped_keys_are_the_hybrid_of_the_remapped_column() {
        // keys of a large dictionary, a row group using every 7th: renumbered as they are packed, against
        // the hybrid of the renumbered copy (the writer's former path) decoded back; widths 0-10
        let mut x = 99u64;
        for t in 0..3000 {
            let used = [1usize, 2, 3, 5, 9, 17, 60, 130, 256, 300, 1000][t % 11];
            let n = (t * 13) % 301 + 1;
            let mut keys = Vec::new();
            while keys.len() < n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let k = ((x >> 33) % used as u64) as u32 * 7;
                let r = ((x >> 45) % 20) as usize + 1;
                keys.extend(std::iter::repeat_n(k, r));
            }
            keys.truncate(n);
            let remap: Vec<u32> = (0..(used * 7).next_power_of_two() as u32).map(|k| k / 7).collect();
            let mapped: Vec<u32> = keys.iter().map(|&k| remap[k as usize]).collect();
            let w = bit_width(used as u64 - 1);
            let mut a = Vec::new();
            rle_hybrid_keys(&mut a, &keys, w, Some(&remap));
            assert_eq!(unhybrid(&a, w, n), mapped, "{used} keys, {n} rows");
            let mut b = Vec::new();
            rle_hybrid(&mut b, &mapped, w);
            assert_eq!(a, b, "{used} keys, {n} rows");
        }
    }

    #[test]
    fn fast_and_slow_packers_agree() {
        for w in 1..=64u32 {
            for n in [96u64, 8, 40, 48, 88] {
                let vals: Vec<u64> = (0..n).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - w)).collect();
                let (mut a, mut b) = (Vec::new(), Vec::new());
                pack(&mut a, &vals, w);
                pack_slow(&mut b, &vals, w);
                assert_eq!(a, b, "width {w}, {n} values");
            }
        }
    }

    #[test]
    fn sparse_levels_match_flags() {
        for (n, every) in [(1usize, 1usize), (5, 1), (300, 7), (300, 1000), (1001, 3), (64, 1)] {
            for first in [0usize, 1000] {
                let have: Vec<u32> = (0..n).filter(|i| i % every == 2 % every).map(|i| (first + i) as u32).collect();
                let mut flags = vec![false; n];
                have.iter().for_each(|&r| flags[r as usize - first] = true);
                let (mut a, mut b) = (Vec::new(), Vec::new());
                def_levels(&mut a, &flags);
                def_levels_sparse(&mut b, &have, first, n);
                assert_eq!(a, b, "n {n} every {every}");
            }
        }
    }

    #[test]
    fn bools_pack_low_bit_first() {
        for x in 0..=255u8 {
            let g: [bool; 8] = std::array::from_fn(|i| (x >> i) & 1 == 1);
            assert_eq!(bools_to_bits(&g), x);
        }
    }

    #[test]
    fn hybrid_round_trips() {
        let mut vals: Vec<u32> = (0..1000).map(|i| (i * 7 % 13) as u32).collect();
        vals.extend(std::iter::repeat_n(5, 100));
        vals.extend([1, 2, 3]);
        vals.extend(std::iter::repeat_n(3, 21));
        vals.extend([4; 8]);
        vals.extend([5; 8]);
        vals.extend([5; 3]);
        for w in [4u32, 5, 9] {
            let mut out = Vec::new();
            rle_hybrid(&mut out, &vals, w);
            assert_eq!(unhybrid(&out, w, vals.len()), vals);
        }
        // every prefix: runs ending anywhere relative to the groups of 8
        for n in 0..vals.len().min(300) {
            let mut out = Vec::new();
            rle_hybrid(&mut out, &vals[n..], 4);
            assert_eq!(unhybrid(&out, 4, vals.len() - n), &vals[n..], "from {n}");
        }
    }
}
