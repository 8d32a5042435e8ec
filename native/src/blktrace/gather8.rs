//! The decode and the column pass of blktrace records eight at a time with AVX-512 gathers (little-endian version-7
//! records): five 8-byte gathers per eight headers instead of ~11 scalar loads a record, no spills of the dozen
//! column pointers the scalar loop holds, the tables (rwbs keys, sector and unknown flags, names) looked up by lane.
//! The common payloads too (remaps, splits, unplug counts: `payloads`), so the records without one are not read a
//! third time to find that out (one thread 0.93x, two 0.91x on the bench set; 0.955x and 0.94x on a set with none).
//! Only what is rare goes back to the scalar code: names off the pid table's CPU, in the column pass the payloads
//! from the first group of eight with another kind, and in the decode any group of eight that is not regular
//! (`regular`). Without AVX-512 (F, BW, VL) at compile time (`target-cpu=native`,
//! native/.cargo/config.toml) nothing here runs and the scalar loops take every record.

// without AVX-512 the passes below are left out and what feeds them goes unread
#![cfg_attr(not(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
                    target_feature = "avx512vl")), allow(dead_code))]

use std::mem::MaybeUninit;
use std::sync::OnceLock;

use super::decode::Tables;
use super::names::Names;
use crate::events::Sparse;

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
    /// the payload columns the pass fills for the records whose payload is a remap (A), a split (X) or an unplug
    /// count (U, UT) without a cgroup id (`Pay`), and the row of the chunk's first record
    pub pay: Pay<'a>,
}

/// The sparse columns of the common payloads; rows are pushed in ascending order, as stream.rs's `payload` does.
pub struct Pay<'a> {
    pub row0: usize,
    pub remap_major: &'a mut Sparse<u32>,
    pub remap_minor: &'a mut Sparse<u32>,
    pub remap_sector: &'a mut Sparse<i64>,
    pub split: &'a mut Sparse<i64>,
    pub unplug: &'a mut Sparse<i64>,
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

/// Fill rows 0..k of `out` for the largest k <= len a multiple of 8, and return k (0 without AVX-512): all columns
/// when C is ALL; for the split read (sink.rs) those before events::SPLIT when FIRST, the rest when SECOND, and time
/// in both. The records must be version-7 little-endian headers lying wholly inside `buf` (the walk's offsets).
/// With the second columns, also the payloads of rows 0..p (returned with k): the common ones (`Pay`) by lane, up
/// to the first group of eight with a payload they are not (a cgroup id, a SCSI command, a message), from which on
/// stream.rs's scalar `payload` takes every record, so each sparse column's rows still come in order.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
          target_feature = "avx512vl"))]
pub fn columns<const C: u8>(inp: &In, out: &mut Out) -> (usize, usize) {
    use std::arch::x86_64::*;

    use super::codes::TC_PC;
    use super::decode::prefetch;
    use super::names::key;
    use super::stream::{COLS_AHEAD, FIRST, SECOND};

    let (first, second) = (C != SECOND, C != FIRST);
    let n = inp.idx.len() & !7;
    let mut pay_to = if second { None } else { Some(0) }; // where the scalar payloads take over
    let (buf, t) = (inp.buf.as_ptr(), inp.t);
    // SAFETY: every gather reads 8 bytes at offset 0, 16, 24, 32 or 40 of a record whose 48-byte header lies inside
    // `buf` (In's contract); the loads and stores are of rows k..k+8 < n <= every slice's length (the chunk's n);
    // the masked gather reads the name table only in lanes whose pid is below its length, the category's 4 bytes
    // lie inside cat_key (2^16 + 3 long).
    unsafe {
        let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
        let origin = _mm512_set1_epi64(inp.origin as i64);
        let sector_bits = _mm512_loadu_si512(t.sector_bits.as_ptr() as *const _);
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
                // rwbs: the category's key (4 bytes read at it: cat_key has 3 to spare), the data bit when bytes > 0
                let cat = _mm512_srli_epi64::<48>(g24);
                let rw = _mm256_and_si256(_mm512_i64gather_epi32::<1>(cat, t.cat_key.as_ptr() as *const _),
                                          _mm256_set1_epi32(0xFF));
                let rw = _mm256_mask_or_epi32(rw, _mm512_test_epi64_mask(g24, low32), rw, _mm256_set1_epi32(8));
                _mm256_storeu_si256(out.rwbs.as_mut_ptr().add(k) as *mut _, rw);
                // a sector: the code's flag, and not a SCSI command (TC_PC)
                let code = _mm512_cvtepu16_epi64(_mm_loadu_si128(inp.codes.as_ptr().add(k) as *const _));
                let flags = _mm512_permutexvar_epi64(_mm512_srli_epi64::<6>(code), sector_bits);
                let flag = _mm512_srlv_epi64(flags, _mm512_and_si512(code, _mm512_set1_epi64(63)));
                let sec = _mm512_test_epi64_mask(flag, _mm512_set1_epi64(1))
                    & !_mm512_test_epi64_mask(cat, _mm512_set1_epi64(TC_PC as i64));
                let bools = _mm_maskz_mov_epi8(sec as u16, _mm_set1_epi8(1));
                _mm_storel_epi64(out.has_sector.as_mut_ptr().add(k) as *mut _, bools);
                if pay_to.is_none() && !payloads(inp, out, k, vo, code, g24, g40) {
                    pay_to = Some(k);
                }
                // the lanes off the table's CPU, by the map
                let mut rest = other;
                while rest != 0 {
                    let r = k + rest.trailing_zeros() as usize;
                    let at = buf.add(inp.idx[r]);
                    let p = (at.add(32) as *const u32).read_unaligned();
                    let c = (at.add(40) as *const u32).read_unaligned();
                    out.proc_[r].write(match inp.tbl {
                        Some(tb) if c == inp.cpu0 => key(tb, p),
                        _ => inp.names.lookup(p, c),
                    });
                    rest &= rest - 1;
                }
            }
            for j in 0..8 {
                prefetch(inp.buf, inp.idx[k + j] + COLS_AHEAD);
            }
            k += 8;
        }
    }
    (n, pay_to.unwrap_or(n))
}

/// The payloads of the eight records at k (their offsets `vo`, codes, and header words at bytes 24 and 40) when
/// they are only the common ones: each a remap (A, 16 bytes or more: device and sector, big-endian), a split (X)
/// or an unplug count (U, UT; 8 bytes or more), or none that `payload` reads. Else false, nothing written.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
          target_feature = "avx512vl"))]
#[inline(always)]
fn payloads(inp: &In, out: &mut Out, k: usize, vo: std::arch::x86_64::__m512i, code: std::arch::x86_64::__m512i,
            g24: std::arch::x86_64::__m512i, g40: std::arch::x86_64::__m512i) -> bool {
    use std::arch::x86_64::*;

    use super::codes::{A, CGROUP_BIT, MSG, TC_PC, U, UT, X};

    // SAFETY: the gathers read 8 bytes at offset 48 or 56 of records whose payload is at least that long (lanes of
    // mA, mX, mU), inside `buf` with their record; the stores write 8 lanes into room reserved just before them
    unsafe {
        let one = |x: i64| _mm512_set1_epi64(x);
        let pdu = _mm512_srli_epi64::<48>(g40);
        let action = _mm512_srli_epi64::<32>(g24);
        let odd = _mm512_test_epi64_mask(action, one(CGROUP_BIT as i64 | ((TC_PC as i64) << 16)))
            | _mm512_cmpeq_epi64_mask(code, one(MSG as i64));
        if odd != 0 {
            return false;
        }
        let long = |b: i64| _mm512_cmpge_epu64_mask(pdu, one(b));
        let is = |c: usize| _mm512_cmpeq_epi64_mask(code, one(c as i64));
        let (ma, mx, mu) = (is(A) & long(16), is(X) & long(8), (is(U) | is(UT)) & long(8));
        if ma | mx | mu == 0 {
            return true;
        }
        let base = inp.buf.as_ptr();
        // bytes reversed in each 8-byte lane: the payload's big-endian words
        let rev = _mm512_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                  8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                  8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                  8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
        let be = |m: __mmask8, at: usize| {
            _mm512_shuffle_epi8(_mm512_mask_i64gather_epi64::<1>(_mm512_setzero_si512(), m, vo, base.add(at) as *const _), rev)
        };
        let rows = _mm256_add_epi32(_mm256_set1_epi32((out.pay.row0 + k) as i32), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
        /// Append the lanes of m: their rows, and their values by `values` (a compressed store of at most 8 at the
        /// pointer it is given, past the column's end).
        fn put<T>(col: &mut Sparse<T>, m: __mmask8, rows: __m256i, values: impl FnOnce(*mut T)) {
            col.rows.reserve(8);
            col.v.reserve(8);
            let (r, n) = (col.rows.len(), col.v.len());
            // SAFETY: room for 8 more in both vectors (reserve), of which the first popcount(m) are set
            unsafe {
                _mm256_storeu_si256(col.rows.as_mut_ptr().add(r) as *mut _, _mm256_maskz_compress_epi32(m, rows));
                values(col.v.as_mut_ptr().add(n));
                col.rows.set_len(r + m.count_ones() as usize);
                col.v.set_len(n + m.count_ones() as usize);
            }
        }
        let put32 = |col: &mut Sparse<u32>, m, v| {
            put(col, m, rows, |at| _mm256_storeu_si256(at as *mut _, _mm256_maskz_compress_epi32(m, v)))
        };
        let put64 = |col: &mut Sparse<i64>, m, v| {
            put(col, m, rows, |at| _mm512_storeu_si512(at as *mut _, _mm512_maskz_compress_epi64(m, v)))
        };
        let p = &mut out.pay;
        if ma != 0 {
            let dev = _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(be(ma, 48))); // the first 4 bytes, big-endian
            put32(p.remap_major, ma, _mm256_srli_epi32::<20>(dev));
            put32(p.remap_minor, ma, _mm256_and_si256(dev, _mm256_set1_epi32(0xFFFFF)));
            put64(p.remap_sector, ma, be(ma, 56));
        }
        if mx | mu != 0 {
            let v = be(mx | mu, 48);
            if mx != 0 {
                put64(p.split, mx, v);
            }
            if mu != 0 {
                put64(p.unplug, mu, v);
            }
        }
        true
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
              target_feature = "avx512vl")))]
pub fn columns<const C: u8>(_: &In, _: &mut Out) -> (usize, usize) {
    (0, 0)
}

/// The decode's state before eight records (decode.rs, Dec::batch): `key` is the (device, CPU) and sequence
/// number of the record before when the decode counts (None: it does not, and checks no key, sequence or code).
pub struct Before<'a> {
    /// Tables::unknown_bits: bit c % 64 of word c / 64 set when blkparse does not know action code c
    pub unknown: &'a [u64; 8],
    pub key: Option<((u32, u32), u32)>,
    pub prev_time: u64,
    pub name_cpu: Option<u32>,
}

/// Eight regular records decoded: the last one's sequence number and time, whether their times rose from the
/// time before, and how many are from another CPU than the file's name says.
pub struct Run {
    pub seq: u32,
    pub time: u64,
    pub sorted: bool,
    pub other: u64,
}

/// Decode eight records (`recs`, version-7 little-endian headers wholly inside `buf`) into their events'
/// offsets, codes and times when they are regular: no notify record; and when counting, no action blkparse
/// does not know, every one of `key`'s device and CPU, sequence numbers following key's one by one. Else None,
/// nothing written, and the decode takes them one by one (decode.rs, Dec::one) as before.
/// # Safety
/// offs, codes and times must have room for 8 values each.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
          target_feature = "avx512vl"))]
pub unsafe fn regular(buf: &[u8], recs: &[usize], b: &Before, offs: *mut usize, codes: *mut u16, times: *mut u64)
    -> Option<Run> {
    use std::arch::x86_64::*;

    use super::codes::TC_NOTIFY;

    assert_eq!(recs.len(), 8);
    let base = buf.as_ptr();
    let vo = _mm512_loadu_si512(recs.as_ptr() as *const _);
    let gather = |at: usize| _mm512_i64gather_epi64::<1>(vo, base.add(at) as *const _);
    let one = |x: i64| _mm512_set1_epi64(x);
    let action = _mm512_srli_epi64::<32>(gather(24)); // bytes, action
    if _mm512_test_epi64_mask(action, one((TC_NOTIFY as i64) << 16)) != 0 {
        return None;
    }
    let code = _mm512_and_si512(action, one(0xFF));
    let g8 = gather(8); // time
    let mut run = Run { seq: 0, time: 0, sorted: true, other: 0 };
    if let Some(((dev, cpu), seq)) = b.key {
        let unknown = _mm512_loadu_si512(b.unknown.as_ptr() as *const _);
        let word = _mm512_permutexvar_epi64(_mm512_srli_epi64::<6>(code), unknown);
        if _mm512_test_epi64_mask(_mm512_srlv_epi64(word, _mm512_and_si512(code, one(63))), one(1)) != 0 {
            return None;
        }
        let devs = _mm512_srli_epi64::<32>(gather(32)); // pid, device
        let cpus = _mm512_and_si512(gather(40), one(0xFFFF_FFFF)); // cpu, error, pdu_len
        if _mm512_cmpneq_epi64_mask(devs, one(dev as i64)) | _mm512_cmpneq_epi64_mask(cpus, one(cpu as i64)) != 0 {
            return None;
        }
        // seq + 1 ..= seq + 8 (as i64: past u32::MAX none matches, and Dec::one counts the wrap)
        let want = _mm512_add_epi64(one(seq as i64 + 1), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
        if _mm512_cmpneq_epi64_mask(_mm512_srli_epi64::<32>(gather(0)), want) != 0 {
            return None;
        }
        run.seq = seq + 8;
        run.other = if b.name_cpu.is_some_and(|c| c != cpu) { 8 } else { 0 };
    }
    // each time against the one before it: [prev_time, t0 .. t6]
    let before = _mm512_alignr_epi64::<7>(g8, one(b.prev_time as i64));
    run.sorted = _mm512_cmpge_epu64_mask(g8, before) == 0xFF;
    _mm512_storeu_si512(offs as *mut _, vo);
    _mm_storeu_si128(codes as *mut _, _mm512_cvtepi64_epi16(code));
    _mm512_storeu_si512(times as *mut _, g8);
    run.time = *times.add(7);
    Some(run)
}

/// Without AVX-512: never regular, every record decoded one by one.
/// # Safety
/// None needed; the signature is the AVX-512 one's.
#[cfg(not(all(target_arch = "x86_64", target_feature = "avx512f", target_feature = "avx512bw",
              target_feature = "avx512vl")))]
pub unsafe fn regular(_: &[u8], _: &[usize], _: &Before, _: *mut usize, _: *mut u16, _: *mut u64) -> Option<Run> {
    None
}
