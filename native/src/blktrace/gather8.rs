//! The column pass eight records at a time with AVX-512 gathers (little-endian version-7 records, every column):
//! five 8-byte gathers per eight headers instead of ~11 scalar loads per record, and no spills of the dozen column
//! pointers the scalar loop holds. Only the lookups in tables (rwbs keys, sector flags, names off the table's CPU)
//! stay scalar. Without AVX-512 at compile time (`target-cpu=native`, native/.cargo/config.toml) it does nothing
//! and the scalar loop in stream.rs takes every record.

use std::mem::MaybeUninit;
use std::sync::OnceLock;

use super::decode::Tables;
use super::names::Names;

/// Whether to take the pass: BLKSCOPE_NATIVE_GATHER8=0 leaves every record to the scalar loop (the tests compare
/// the two passes' bytes).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("BLKSCOPE_NATIVE_GATHER8").as_deref() != Ok("0"))
}

/// The slices of a chunk's columns the pass fills (the stream's `spare` slots), and the sector flags.
pub struct Out<'a> {
    pub dmaj: &'a mut [MaybeUninit<u32>],
    pub dmin: &'a mut [MaybeUninit<u32>],
    pub cpu: &'a mut [MaybeUninit<u32>],
    pub seq: &'a mut [MaybeUninit<i64>],
    pub time: &'a mut [MaybeUninit<i64>],
    pub pid: &'a mut [MaybeUninit<u32>],
    pub act: &'a mut [MaybeUninit<u32>],
    pub rwbs: &'a mut [MaybeUninit<u32>],
    pub sector: &'a mut [MaybeUninit<i64>],
    pub nsec: &'a mut [MaybeUninit<i64>],
    pub err: &'a mut [MaybeUninit<i32>],
    pub proc_: &'a mut [MaybeUninit<u32>],
    pub has_sector: &'a mut [bool],
}

/// What the pass reads: the window's bytes, the chunk's record offsets, codes and times, and the tables.
pub struct In<'a> {
    pub buf: &'a [u8],
    pub idx: &'a [usize],
    pub codes: &'a [u16],
    pub times: &'a [u64],
    pub origin: u64,
    pub t: &'a Tables,
    pub names: &'a Names,
    pub tbl: Option<&'a [u32]>,
    pub cpu0: u32,
}

/// Fill rows 0..k of `out` for the largest k <= len a multiple of 8, and return k (0 without AVX-512): the columns
/// before events::SPLIT when C is FIRST, those after it when SECOND, all when ALL (the split read, sink.rs), time in both.
/// The records must be version-7 little-endian headers lying wholly inside `buf` (the walk's offsets).
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
pub fn columns<const C: u8>(inp: &In, out: &mut Out) -> usize {
    use std::arch::x86_64::*;

    use super::stream::{FIRST, SECOND};

    use super::codes::TC_PC;
    use super::decode::{prefetch, CODES};
    use super::names::key;
    use super::stream::COLS_AHEAD;

    let (first, second) = (C != SECOND, C != FIRST);
    let n = inp.idx.len() & !7;
    let (buf, t) = (inp.buf.as_ptr(), inp.t);
    // SAFETY: every gather reads 8 bytes at offset 0, 16, 24, 32 or 40 of a record whose 48-byte header lies inside
    // `buf` (In's contract); the loads and stores are of rows k..k+8 < n <= every slice's length (the chunk's n);
    // the masked gather reads the name table only in lanes whose pid is below its length.
    unsafe {
        let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
        let origin = _mm512_set1_epi64(inp.origin as i64);
        let mut a24 = [0u64; 8];
        let mut k = 0;
        while k < n {
            let vo = _mm512_loadu_si512(inp.idx.as_ptr().add(k) as *const _);
            let gather = |at: usize| _mm512_i64gather_epi64::<1>(vo, buf.add(at) as *const _);
            let st64 = |col: &mut [MaybeUninit<i64>], v| _mm512_storeu_si512(col.as_mut_ptr().add(k) as *mut _, v);
            let st32 = |col: &mut [MaybeUninit<u32>], v| {
                _mm256_storeu_si256(col.as_mut_ptr().add(k) as *mut _, _mm512_cvtepi64_epi32(v))
            };
            let times = _mm512_loadu_si512(inp.times.as_ptr().add(k) as *const _);
            st64(out.time, _mm512_sub_epi64(times, origin));
            let g32 = gather(32); // pid, device
            let g40 = gather(40); // cpu, error, pdu_len
            if first {
                st64(out.seq, _mm512_srli_epi64::<32>(gather(0))); // magic, seq
                let dev = _mm512_srli_epi64::<32>(g32);
                st32(out.dmaj, _mm512_srli_epi64::<20>(dev));
                st32(out.dmin, _mm512_and_si512(dev, _mm512_set1_epi64(0xFFFFF)));
                st32(out.pid, g32);
                st32(out.cpu, g40);
                let codes = _mm_loadu_si128(inp.codes.as_ptr().add(k) as *const _);
                _mm256_storeu_si256(out.act.as_mut_ptr().add(k) as *mut _, _mm256_cvtepu16_epi32(codes));
            }
            if second {
                st64(out.sector, gather(16));
                let g24 = gather(24); // bytes, action
                st64(out.nsec, _mm512_srli_epi64::<9>(_mm512_and_si512(g24, low32)));
                let err = _mm512_and_si512(_mm512_srli_epi64::<32>(g40), _mm512_set1_epi64(0xFFFF));
                _mm256_storeu_si256(out.err.as_mut_ptr().add(k) as *mut _, _mm512_cvtepi64_epi32(err));
                // names: from the table in the lanes of its CPU (0 - 1 is NONE past its end), the map in the rest
                let pids = _mm512_and_si512(g32, low32);
                let mut other = 0xFFu8;
                if let Some(tb) = inp.tbl {
                    let cpus = _mm512_and_si512(g40, low32);
                    other = !_mm512_cmpeq_epi64_mask(cpus, _mm512_set1_epi64(inp.cpu0 as i64));
                    let inside = _mm512_cmplt_epu64_mask(pids, _mm512_set1_epi64(tb.len() as i64));
                    let g = _mm512_mask_i64gather_epi32::<4>(_mm256_setzero_si256(), inside & !other, pids,
                                                             tb.as_ptr() as *const _);
                    let keys = _mm256_sub_epi32(g, _mm256_set1_epi32(1));
                    _mm256_storeu_si256(out.proc_.as_mut_ptr().add(k) as *mut _, keys);
                }
                _mm512_storeu_si512(a24.as_mut_ptr() as *mut _, g24);
                for (j, &a) in a24.iter().enumerate() {
                    let r = k + j;
                    let (bytes, cat) = (a as u32, (a >> 48) as u32);
                    out.rwbs[r].write((t.cat_key[cat as usize] | (((bytes > 0) as u8) << 3)) as u32);
                    out.has_sector[r] = t.sector[inp.codes[r] as usize & (CODES - 1)] & (cat & TC_PC == 0);
                    if other >> j & 1 != 0 {
                        let at = buf.add(inp.idx[r]);
                        let (p, c) = ((at.add(32) as *const u32).read_unaligned(), (at.add(40) as *const u32).read_unaligned());
                        out.proc_[r].write(match inp.tbl {
                            Some(tb) if c == inp.cpu0 => key(tb, p),
                            _ => inp.names.lookup(p, c),
                        });
                    }
                }
            }
            for j in 0..8 {
                prefetch(inp.buf, inp.idx[k + j] + COLS_AHEAD);
            }
            k += 8;
        }
    }
    n
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f")))]
pub fn columns<const C: u8>(_: &In, _: &mut Out) -> usize {
    0
}
