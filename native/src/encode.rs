//! Parquet value encodings: RLE/bit-packed hybrid (definition levels, dictionary keys) and
//! DELTA_BINARY_PACKED (integers). Bits are packed least significant first, as the format says.

use crate::thrift::{varint, zigzag};

pub fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Pack `vals` (each < 2^w) into `out`, LSB first; vals.len() * w must be a multiple of 8.
#[inline]
fn pack(out: &mut Vec<u8>, vals: &[u64], w: u32) {
    if w == 0 {
        return;
    }
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    for &v in vals {
        acc |= (v as u128) << bits;
        bits += w;
        if bits >= 64 {
            out.extend_from_slice(&(acc as u64).to_le_bytes());
            acc >>= 64;
            bits -= 64;
        }
    }
    let bytes = bits.div_ceil(8) as usize;
    out.extend_from_slice(&(acc as u64).to_le_bytes()[..bytes]);
}

/// RLE/bit-packed hybrid of `vals` with bit width `w` (no length prefix). Uniform groups of 8 become
/// RLE runs, the rest bit-packed runs; only the last group may be short (padded; readers count values).
pub fn rle_hybrid(out: &mut Vec<u8>, vals: &[u32], w: u32) {
    let vbytes = w.div_ceil(8) as usize;
    let mut run_val = 0u32;
    let mut run_len = 0usize;
    let mut packed: Vec<u64> = Vec::new();
    let flush_run = |out: &mut Vec<u8>, run_val: u32, run_len: &mut usize| {
        if *run_len > 0 {
            varint(out, (*run_len as u64) << 1);
            out.extend_from_slice(&run_val.to_le_bytes()[..vbytes]);
            *run_len = 0;
        }
    };
    let flush_packed = |out: &mut Vec<u8>, packed: &mut Vec<u64>| {
        if !packed.is_empty() {
            let groups = packed.len().div_ceil(8);
            packed.resize(groups * 8, 0);
            varint(out, ((groups as u64) << 1) | 1);
            pack(out, packed, w);
            packed.clear();
        }
    };
    for g in vals.chunks(8) {
        let first = g[0];
        let uniform = g.iter().all(|&x| x == first);
        if uniform && (g.len() == 8 || (run_len > 0 && run_val == first)) {
            if run_len > 0 && run_val == first {
                run_len += g.len();
            } else {
                flush_run(out, run_val, &mut run_len);
                flush_packed(out, &mut packed);
                run_val = first;
                run_len = g.len();
            }
        } else {
            flush_run(out, run_val, &mut run_len);
            packed.extend(g.iter().map(|&x| x as u64));
        }
    }
    flush_run(out, run_val, &mut run_len);
    flush_packed(out, &mut packed);
}

/// Definition levels (1 = value present) as a length-prefixed RLE hybrid of width 1.
pub fn def_levels(out: &mut Vec<u8>, ok: &[bool]) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    if ok.iter().all(|&b| b) {
        varint(out, (ok.len() as u64) << 1);
        out.push(1);
    } else {
        let lv: Vec<u32> = ok.iter().map(|&b| b as u32).collect();
        rle_hybrid(out, &lv, 1);
    }
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

const BLOCK: usize = 128;
const MINI: usize = 32;

/// DELTA_BINARY_PACKED of `vals`, read as integers of `bits` (32 or 64) bits with wrapping deltas:
/// blocks of 128 values in 4 miniblocks of 32.
pub fn delta_binary_packed(out: &mut Vec<u8>, vals: &[i64], bits: u32) {
    let wrap = |x: i64| if bits == 32 { x as i32 as i64 } else { x };
    varint(out, BLOCK as u64);
    varint(out, (BLOCK / MINI) as u64);
    varint(out, vals.len() as u64);
    varint(out, zigzag(vals.first().copied().map(wrap).unwrap_or(0)));
    if vals.len() < 2 {
        return;
    }
    let mask: u64 = if bits == 32 { 0xFFFF_FFFF } else { u64::MAX };
    let mut deltas = [0i64; BLOCK];
    let mut rel = [0u64; MINI];
    let mut prev = vals[0];
    for block in vals[1..].chunks(BLOCK) {
        let n = block.len();
        let mut min = i64::MAX;
        for (d, &v) in deltas.iter_mut().zip(block) {
            *d = wrap(v.wrapping_sub(prev));
            prev = v;
            min = min.min(*d);
        }
        varint(out, zigzag(min));
        let minis = n.div_ceil(MINI);
        let widths_at = out.len();
        out.extend_from_slice(&[0u8; BLOCK / MINI]);
        for m in 0..minis {
            let part = &deltas[m * MINI..(m * MINI + MINI).min(n)];
            let mut max = 0u64;
            for (r, &d) in rel.iter_mut().zip(part) {
                *r = (d.wrapping_sub(min) as u64) & mask;
                max |= *r;
            }
            rel[part.len()..].fill(0);
            let w = bit_width(max);
            out[widths_at + m] = w as u8;
            pack(out, &rel, w);
        }
    }
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
        out.truncate(n);
        out
    }

    #[test]
    fn hybrid_round_trips() {
        let mut vals: Vec<u32> = (0..1000).map(|i| (i * 7 % 13) as u32).collect();
        vals.extend(std::iter::repeat_n(5, 100));
        vals.extend([1, 2, 3]);
        for w in [4u32, 5, 9] {
            let mut out = Vec::new();
            rle_hybrid(&mut out, &vals, w);
            assert_eq!(unhybrid(&out, w, vals.len()), vals);
        }
    }
}
