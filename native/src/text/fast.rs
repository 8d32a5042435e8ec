//! The common event lines without regular expressions, straight from the read buffer into the columns.
//! One SSE2 pass over a line finds its end, its blanks, dots and commas and whether it is ASCII; numbers
//! are parsed eight digits at a time. A line is taken only when it has one of the shapes below and every
//! token is what the general path (general.rs) would read the same way; anything else goes there.
//!
//! Tokens after RWBS:  `S + N [proc]`  `S + N [err]` (C/R)  `S + N <- (M,m) S2`  `S / S2 [proc]` (X)
//! `S [proc]`  `[proc]` (P)  `[proc] N` (U/UT).

use std::arch::x86_64::*;

use super::{general::ns, Layout, State};
use crate::events::Dict;
use crate::report::Fail;
use crate::sink::Sink;

/// Readable bytes the buffer keeps after its data: a line of up to MAX_LINE bytes is scanned 16 bytes at
/// a time and numbers are loaded 8 bytes at a time, both past the line's end (never used).
pub const SLACK: usize = 256;
const MAX_LINE: usize = 128;

/// Where the line starting at the scan position ends, and bit i set where its byte i is a blank (space or
/// tab), a dot or a comma.
pub struct Scan {
    pub len: usize,
    pub ascii: bool,
    blank: u128,
    dot: u128,
    comma: u128,
}

/// Masks of 64 bytes at `p`: (newline, blank, dot, comma, non-ASCII), bit i for byte i.
#[inline(always)]
unsafe fn masks64(p: *const u8) -> [u64; 5] {
    let mut m = [0u64; 5];
    for j in 0..4 {
        let v = _mm_loadu_si128(p.add(16 * j) as *const __m128i);
        let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let bits = |x: __m128i| (_mm_movemask_epi8(x) as u16 as u64) << (16 * j);
        m[0] |= bits(eq(b'\n'));
        m[1] |= bits(_mm_or_si128(eq(b' '), eq(b'\t')));
        m[2] |= bits(eq(b'.'));
        m[3] |= bits(eq(b','));
        m[4] |= bits(v);
    }
    m
}

/// The line at `p` ends at its newline or at `limit` bytes; None when it is longer than MAX_LINE.
/// SAFETY: the caller guarantees MAX_LINE readable bytes at `p`.
#[inline(always)]
pub unsafe fn scan(p: *const u8, limit: usize) -> Option<Scan> {
    let lo = masks64(p);
    let below = |n: usize| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    let end = (lo[0].trailing_zeros() as usize).min(limit);
    if end < 64 {
        let m = below(end);
        return Some(Scan { len: end, ascii: lo[4] & m == 0, blank: (lo[1] & m) as u128, dot: lo[2] as u128, comma: lo[3] as u128 });
    }
    let hi = masks64(p.add(64));
    let end = (64 + hi[0].trailing_zeros() as usize).min(limit);
    if end >= MAX_LINE {
        return None;
    }
    let m = below(end - 64);
    let join = |l: u64, h: u64| l as u128 | (h as u128) << 64;
    Some(Scan {
        len: end,
        ascii: lo[4] | hi[4] & m == 0,
        blank: join(lo[1], hi[1] & m),
        dot: join(lo[2], hi[2]),
        comma: join(lo[3], hi[3]),
    })
}

#[inline(always)]
unsafe fn load8(p: *const u8) -> u64 {
    u64::from_le_bytes(std::ptr::read_unaligned(p as *const [u8; 8]))
}

/// 1..=8 ASCII bytes (the low `len` bytes of `raw`) as a decimal number; None unless all are digits.
#[inline(always)]
fn swar8(raw: u64, len: usize) -> Option<u64> {
    let sh = (8 - len) * 8;
    // the digits to the high bytes, '0' into the low ones: leading zeros
    let v = if sh == 0 { raw } else { (raw << sh) | (0x3030_3030_3030_3030u64 >> (64 - sh)) };
    const HI: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    if (v & HI) | ((v.wrapping_add(0x0606_0606_0606_0606) & HI) >> 4) != 0x3333_3333_3333_3333 {
        return None;
    }
    let v = (v & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561) >> 8;
    let v = (v & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601) >> 16;
    Some((v & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001) >> 32)
}

/// The digits at p[..len] (1..=18 of them, as the general path's integers) as a number.
#[inline(always)]
unsafe fn digits(p: *const u8, len: usize) -> Option<u64> {
    if len.wrapping_sub(1) < 8 {
        swar8(load8(p), len)
    } else if len <= 16 {
        let hi = swar8(load8(p), len - 8)?;
        Some(hi * 100_000_000 + swar8(load8(p.add(len - 8)), 8)?)
    } else if len <= 18 {
        let hi = swar8(load8(p), len - 16)?;
        let mid = swar8(load8(p.add(len - 16)), 8)?;
        Some((hi * 100_000_000 + mid) * 100_000_000 + swar8(load8(p.add(len - 8)), 8)?)
    } else {
        None
    }
}

/// A token: byte range [a, e) of the line.
#[derive(Clone, Copy, Default)]
struct Tok {
    a: usize,
    e: usize,
}

impl Tok {
    #[inline(always)]
    fn len(self) -> usize {
        self.e - self.a
    }
}

/// The tokens' positions in the line (split on runs of blanks); None when there are more than fit.
#[inline(always)]
fn tokens(sc: &Scan, toks: &mut [Tok; 14]) -> Option<usize> {
    let len_mask = if sc.len >= 128 { u128::MAX } else { (1u128 << sc.len) - 1 };
    let word = !sc.blank & len_mask;
    let (starts, ends) = (word & !(word << 1), word & !(word >> 1));
    // bit walks on 64-bit halves (a 128-bit trailing_zeros or borrow costs several instructions); the
    // k-th start and the k-th end delimit the k-th token
    let halves = |x: u128| [(0, x as u64), (64, (x >> 64) as u64)];
    let mut n = 0;
    for (off, mut s) in halves(starts) {
        while s != 0 {
            if n == toks.len() {
                return None;
            }
            toks[n].a = off + s.trailing_zeros() as usize;
            s &= s - 1;
            n += 1;
        }
    }
    let mut k = 0;
    for (off, mut e) in halves(ends) {
        while e != 0 {
            toks[k].e = off + e.trailing_zeros() as usize + 1;
            e &= e - 1;
            k += 1;
        }
    }
    Some(n)
}

/// Interned short strings (RWBS, process names up to 15 bytes) keyed by their bytes packed into two
/// words, in a direct-mapped table: no hashing of the text, no comparison of strings. Longer ones go to
/// the general path's map.
pub struct Words {
    slots: Vec<(u64, u64, u32)>,
}

impl Default for Words {
    fn default() -> Words {
        Words { slots: vec![(0, 0, 0); 256] } // w1 == 0 never matches: a key's w1 has its length byte set
    }
}

impl Words {
    /// SAFETY: 16 readable bytes at `p`; p[..len] is ASCII.
    #[inline(always)]
    unsafe fn get(&mut self, p: *const u8, len: usize, long: &mut super::Keys, dict: &mut Dict) -> u32 {
        if len > 15 {
            return long.get(as_str(p, len), dict);
        }
        let (w0, w1) = (load8(p), load8(p.add(8)));
        let m0 = if len >= 8 { u64::MAX } else { (1u64 << (len * 8)) - 1 };
        let m1 = if len <= 8 { 0 } else { (1u64 << ((len - 8) * 8)) - 1 };
        let (w0, w1) = (w0 & m0, (w1 & m1) | ((len as u64 + 1) << 56));
        let i = ((w0 ^ w1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize;
        let s = &mut self.slots[i];
        if s.0 == w0 && s.1 == w1 {
            return s.2;
        }
        let k = dict.intern(as_str(p, len));
        *s = (w0, w1, k);
        k
    }
}

/// SAFETY: p[..len] is ASCII (so valid UTF-8).
#[inline(always)]
unsafe fn as_str<'a>(p: *const u8, len: usize) -> &'a str {
    std::str::from_utf8_unchecked(std::slice::from_raw_parts(p, len))
}

/// The actions the fast path takes (the general path's short letters; long names, `m` and others go
/// there): index by the first byte, UT separately.
#[inline(always)]
fn short_action(t: &[u8]) -> Option<usize> {
    match t {
        [c @ (b'Q' | b'M' | b'F' | b'G' | b'S' | b'R' | b'D' | b'C' | b'P' | b'U' | b'I' | b'X' | b'B' | b'A')] => {
            Some(*c as usize)
        }
        b"UT" => Some(0),
        _ => None,
    }
}

/// The line `p[..sc.len]` (ASCII, in the read buffer: SLACK bytes readable after it) as one event row,
/// pushed; Ok(false) when it is not a common line (nothing pushed).
/// SAFETY: as stated.
#[inline(always)]
pub unsafe fn take(p: *const u8, sc: &Scan, st: &mut State, sink: &mut Sink) -> Result<bool, Fail> {
    let mut t = [Tok::default(); 14];
    let Some(n) = tokens(sc, &mut t) else { return Ok(false) };
    let head = if st.blkparse { 7 } else { 6 };
    if n < head || n > head + 6 {
        return Ok(false);
    }
    let b = std::slice::from_raw_parts(p, sc.len);
    let num = |k: Tok| digits(p.add(k.a), k.len());
    let u32_of = |k: Tok| num(k).and_then(|v| u32::try_from(v).ok());
    // dev `M,m`: the first comma inside the token
    let dev = t[0];
    let comma = (sc.comma >> dev.a).trailing_zeros() as usize + dev.a;
    if comma >= dev.e {
        return Ok(false);
    }
    let (Some(maj), Some(min), Some(cpu)) =
        (u32_of(Tok { a: dev.a, e: comma }), u32_of(Tok { a: comma + 1, e: dev.e }), u32_of(t[1]))
    else {
        return Ok(false);
    };
    let (seq, k) = if st.blkparse {
        match num(t[2]).and_then(|v| i64::try_from(v).ok()) {
            Some(s) => (Some(s), 3),
            None => return Ok(false),
        }
    } else {
        (None, 2)
    };
    // time `S.F`: the first dot inside the token, digits on both sides
    let time = t[k];
    let dot = (sc.dot >> time.a).trailing_zeros() as usize + time.a;
    if dot >= time.e {
        return Ok(false);
    }
    let Some(secs) = num(Tok { a: time.a, e: dot }).and_then(|v| i64::try_from(v).ok()) else { return Ok(false) };
    let frac = &b[dot + 1..time.e];
    let abs_ns = match frac.len() {
        1..=9 => match digits(p.add(dot + 1), frac.len()) {
            // the general path's ns(), without a loop
            Some(f) => secs.wrapping_mul(1_000_000_000).wrapping_add(f as i64 * SCALE[frac.len()]),
            None => return Ok(false),
        },
        0 => return Ok(false),
        _ if frac.iter().all(u8::is_ascii_digit) => ns(secs, frac),
        _ => return Ok(false),
    };
    let Some(pid) = u32_of(t[k + 1]) else { return Ok(false) };
    let act = t[k + 2];
    let Some(ai) = short_action(&b[act.a..act.e]) else { return Ok(false) };
    let err_act = ai == b'C' as usize || ai == b'R' as usize;
    let rwbs = t[k + 3];

    // the payload
    let Some(pl) = payload(b, sc, &t[head..n], &num) else { return Ok(false) };
    // C and R print the error in brackets, the others the command name
    let (mut error, mut proc_) = (None, None);
    if let Some(x) = pl.br {
        let (ia, il) = (x.a + 1, x.len() - 2);
        if err_act {
            match digits(p.add(ia), il).filter(|_| il <= 9) {
                Some(v) => error = Some(v as i32),
                None => return Ok(false), // a sign or a name: the general path
            }
        } else {
            proc_ = Some((ia, il));
        }
    }

    // push: sparse extras first (they take the row index), then every dense column
    st.note(cpu, if st.blkparse { Layout::Blkparse } else { Layout::Classic });
    let ev = &mut sink.ev;
    let row = ev.row();
    if let Some((x, y, r)) = pl.remap {
        ev.remap_dev_major.set(row, x);
        ev.remap_dev_minor.set(row, y);
        ev.remap_sector.set(row, r);
    }
    if let Some(v) = pl.split {
        ev.split_sector.set(row, v);
    }
    if let Some(v) = pl.unplug {
        ev.unplug_count.set(row, v);
    }
    let actk = match st.act_keys[ai] {
        u32::MAX => {
            let k = ev.action.dict.intern(as_str(p.add(act.a), act.len()));
            st.act_keys[ai] = k;
            k
        }
        k => k,
    };
    let rwbsk = st.rwbs_words.get(p.add(rwbs.a), rwbs.len(), &mut st.rwbs, &mut ev.rwbs.dict);
    let prock = proc_.map(|(a, l)| st.proc_words.get(p.add(a), l, &mut st.procs, &mut ev.process.dict));
    let time_ns = st.time_ns(abs_ns);
    // SAFETY: end_row below flushed any full row group, and Events has room for a whole one
    unsafe {
        ev.dev_major.put(maj);
        ev.dev_minor.put(min);
        ev.cpu.put(cpu);
        ev.seq.put_opt(seq);
        ev.time_ns.put(time_ns);
        ev.pid.put(pid);
        ev.action.keys.put(actk);
        ev.rwbs.keys.put(rwbsk);
        ev.sector.put_opt(pl.sector);
        ev.nsectors.put_opt(pl.nsectors);
        ev.error.put_opt(error);
        ev.process.keys.put_opt(prock);
    }
    sink.end_row()?;
    Ok(true)
}

/// What the tokens after RWBS say.
#[derive(Default)]
struct Payload {
    sector: Option<i64>,
    nsectors: Option<i64>,
    br: Option<Tok>,
    remap: Option<(u32, u32, i64)>,
    split: Option<i64>,
    unplug: Option<i64>,
}

/// The payload tokens of one of the shapes the fast path takes, every number in i64 range; else None.
#[inline(always)]
fn payload(b: &[u8], sc: &Scan, pay: &[Tok], num: &impl Fn(Tok) -> Option<u64>) -> Option<Payload> {
    let is = |k: Tok, s: &[u8]| &b[k.a..k.e] == s;
    let bracket = |k: Tok| k.len() >= 2 && b[k.a] == b'[' && b[k.e - 1] == b']';
    let int = |k: Tok| num(k).filter(|&v| v <= i64::MAX as u64).map(|v| v as i64);
    let small = |a: usize, e: usize| num(Tok { a, e }).and_then(|v| u32::try_from(v).ok());
    let mut pl = Payload::default();
    match *pay {
        [a, plus, c, x] if is(plus, b"+") && bracket(x) => {
            (pl.sector, pl.nsectors, pl.br) = (Some(int(a)?), Some(int(c)?), Some(x));
        }
        [a, plus, c, arrow, dev, r] if is(plus, b"+") && is(arrow, b"<-") => {
            (pl.sector, pl.nsectors) = (Some(int(a)?), Some(int(c)?));
            // `(M,m)`: the first comma inside, digits on both sides
            if dev.len() < 5 || b[dev.a] != b'(' || b[dev.e - 1] != b')' {
                return None;
            }
            let comma = (sc.comma >> dev.a).trailing_zeros() as usize + dev.a;
            if comma >= dev.e {
                return None;
            }
            pl.remap = Some((small(dev.a + 1, comma)?, small(comma + 1, dev.e - 1)?, int(r)?));
        }
        [a, slash, c, x] if is(slash, b"/") && bracket(x) => {
            (pl.sector, pl.split, pl.br) = (Some(int(a)?), Some(int(c)?), Some(x));
        }
        [a, x] if bracket(x) => (pl.sector, pl.br) = (Some(int(a)?), Some(x)),
        [x] if bracket(x) => pl.br = Some(x),
        [x, c] if bracket(x) => (pl.unplug, pl.br) = (Some(int(c)?), Some(x)),
        _ => return None,
    }
    Some(pl)
}

const SCALE: [i64; 10] = [1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Option<u64> {
        let mut b = s.as_bytes().to_vec();
        b.resize(s.len() + 32, b'7'); // digits after the token must not count
        unsafe { digits(b.as_ptr(), s.len()) }
    }

    #[test]
    fn numbers_of_every_length_and_non_digits() {
        for s in ["0", "7", "42", "1234567", "12345678", "123456789", "1234567890123456", "123456789012345678"] {
            assert_eq!(d(s), Some(s.parse().unwrap()), "{s}");
        }
        assert_eq!(d("00012"), Some(12));
        for s in ["", "1a", "-1", "+1", "12 3", "1234567/", "12345678:", "9999999999999999999"] {
            assert_eq!(d(s), None, "{s}");
        }
    }

    #[test]
    fn scan_finds_the_line_end_blanks_and_non_ascii() {
        let mut b = b"7,0 1  0.5 9 Q R 1 + 8 [fio]\nnext line".to_vec();
        b.resize(b.len() + SLACK, 0);
        let sc = unsafe { scan(b.as_ptr(), 38) }.unwrap();
        assert_eq!((sc.len, sc.ascii), (28, true));
        let mut t = [Tok::default(); 14];
        assert_eq!(tokens(&sc, &mut t), Some(10));
        assert_eq!((t[2].a, t[2].e), (7, 10));
        let sc = unsafe { scan(b.as_ptr(), 5) }.unwrap(); // a last line without a newline
        assert_eq!(sc.len, 5);
        let mut u = "7,0 1 0.5 9 Q R [fiö]\n".as_bytes().to_vec();
        u.resize(u.len() + SLACK, 0);
        assert!(!unsafe { scan(u.as_ptr(), 100) }.unwrap().ascii);
        let long = vec![b'x'; 200 + SLACK];
        assert!(unsafe { scan(long.as_ptr(), 200) }.is_none());
    }
}
