//! The common event lines, without regular expressions: tokens split on blanks, numbers parsed in
//! place. A line is taken only when it has one of the shapes below and every token is what the general
//! path (general.rs) would read the same way; anything else returns None and goes there.
//!
//! Tokens after RWBS:  `S + N [proc]`  `S + N [err]` (C/R)  `S + N <- (M,m) S2`  `S / S2 [proc]` (X)
//! `S [proc]`  `[proc]` (P)  `[proc] N` (U/UT).

use super::{general::ns, Layout, Line};

/// The actions of the general path's vocabulary in their short form (long forms, messages go there).
fn short_action(a: &[u8]) -> bool {
    matches!(a, b"Q" | b"M" | b"F" | b"G" | b"S" | b"R" | b"D" | b"C" | b"P" | b"U" | b"UT" | b"I" | b"X" | b"B" | b"A")
}

#[inline]
fn digits<T: TryFrom<u64>>(t: &[u8]) -> Option<T> {
    if t.is_empty() || t.len() > 18 {
        return None;
    }
    let mut v = 0u64;
    for &c in t {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u64;
    }
    T::try_from(v).ok()
}

/// A token of a &str split at ASCII blanks (or a part cut at ASCII brackets) is itself valid UTF-8.
#[inline]
fn as_str(t: &[u8]) -> &str {
    // SAFETY: cut from a str at ASCII bytes, which are never inside a multi-byte character
    unsafe { std::str::from_utf8_unchecked(t) }
}

#[inline]
fn bracket(t: &[u8]) -> Option<&[u8]> {
    (t.len() >= 2 && t[0] == b'[' && t[t.len() - 1] == b']').then(|| &t[1..t.len() - 1])
}

/// `(M,m)` -> (M, m)
fn dev_pair(t: &[u8]) -> Option<(u32, u32)> {
    let inner = t.strip_prefix(b"(")?.strip_suffix(b")")?;
    let comma = inner.iter().position(|&c| c == b',')?;
    Some((digits(&inner[..comma])?, digits(&inner[comma + 1..])?))
}

/// Bytes after a line that may be read (not used) when the line lies in the reader's buffer.
pub const SLACK: usize = 16;

/// Bit i set where b[i] is a blank (space or tab), for lines of up to 128 bytes: 16 bytes per compare.
/// With `slack`, chunks are loaded straight from the line even past its end (bits beyond it are masked
/// by the caller); without, the last part goes through a zeroed copy.
#[inline]
fn blanks(b: &[u8], slack: bool) -> Option<u128> {
    use std::arch::x86_64::*;
    if b.len() > 128 {
        return None;
    }
    let mut m = 0u128;
    let mut k = 0;
    while k < b.len() {
        // whole 16-byte chunks straight from the line, the last part through a zeroed copy
        let mut pad = [0u8; 16];
        let c: *const u8 = if k + 16 <= b.len() || slack {
            // SAFETY: in bounds, or within the SLACK bytes the buffer keeps after every line
            unsafe { b.as_ptr().add(k) }
        } else {
            pad[..b.len() - k].copy_from_slice(&b[k..]);
            pad.as_ptr()
        };
        // SAFETY: SSE2 is part of x86_64; the load reads 16 readable bytes at `c`
        let bits = unsafe {
            let v = _mm_loadu_si128(c as *const __m128i);
            let sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8));
            let tb = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8));
            _mm_movemask_epi8(_mm_or_si128(sp, tb)) as u16
        };
        m |= (bits as u128) << k;
        k += 16;
    }
    Some(m)
}

/// Split on runs of blanks into `toks`; None when the line is long or has more tokens than fit.
#[inline]
fn tokens<'a>(b: &'a [u8], toks: &mut [&'a [u8]; 16], slack: bool) -> Option<usize> {
    let len_mask = if b.len() == 128 { u128::MAX } else { (1u128 << b.len()) - 1 };
    let word = !blanks(b, slack)? & len_mask; // bits of token bytes
    let mut starts = word & !(word << 1);
    let mut ends = word & !(word >> 1);
    let mut n = 0;
    while starts != 0 {
        if n == toks.len() {
            return None;
        }
        let (a, e) = (starts.trailing_zeros() as usize, ends.trailing_zeros() as usize);
        toks[n] = &b[a..=e];
        n += 1;
        starts &= starts - 1;
        ends &= ends - 1;
    }
    Some(n)
}

/// `slack`: the line lies in the reader's buffer, SLACK readable bytes after it.
#[inline(always)]
pub fn parse(line: &str, blkparse: bool, slack: bool) -> Option<Line<'_>> {
    let b = line.as_bytes();
    let mut toks: [&[u8]; 16] = [&[]; 16];
    let n = tokens(b, &mut toks, slack)?;
    let head = if blkparse { 7 } else { 6 };
    if n < head || n > head + 6 {
        return None;
    }
    let (dev, cpu) = (toks[0], toks[1]);
    let comma = dev.iter().position(|&c| c == b',')?;
    let maj = digits(&dev[..comma])?;
    let min = digits(&dev[comma + 1..])?;
    let cpu = digits(cpu)?;
    let (seq, k) = if blkparse { (Some(digits::<i64>(toks[2])?), 3) } else { (None, 2) };
    let time = toks[k];
    let dot = time.iter().position(|&c| c == b'.')?;
    let secs: i64 = digits(&time[..dot])?;
    let frac = &time[dot + 1..];
    if frac.is_empty() || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let pid = digits(toks[k + 1])?;
    if !short_action(toks[k + 2]) {
        return None;
    }
    let act = as_str(toks[k + 2]);
    let rwbs = as_str(toks[k + 3]);
    let p = &toks[head..n];
    let mut ln = Line {
        maj,
        min,
        cpu,
        seq,
        pid,
        abs_ns: ns(secs, frac),
        act,
        rwbs,
        layout: if blkparse { Layout::Blkparse } else { Layout::Classic },
        payload_ok: true,
        ..Line::default()
    };
    let br = match p {
        [a, plus, c, br] if *plus == b"+" => {
            ln.sector = Some(digits(a)?);
            ln.nsectors = Some(digits(c)?);
            bracket(br)?
        }
        [a, plus, c, arrow, dev, r] if *plus == b"+" && *arrow == b"<-" => {
            ln.sector = Some(digits(a)?);
            ln.nsectors = Some(digits(c)?);
            let (x, y) = dev_pair(dev)?;
            ln.remap = Some((x, y, Some(digits(r)?)));
            return Some(ln);
        }
        [a, slash, c, br] if *slash == b"/" => {
            ln.sector = Some(digits(a)?);
            ln.split = Some(digits(c)?);
            bracket(br)?
        }
        [a, br] if bracket(br).is_some() => {
            ln.sector = Some(digits(a)?);
            bracket(br)?
        }
        [br] => bracket(br)?,
        [br, c] if bracket(br).is_some() => {
            ln.unplug = Some(digits(c)?);
            bracket(br)?
        }
        _ => return None,
    };
    ln.set_bracket(Some(as_str(br)));
    Some(ln)
}
