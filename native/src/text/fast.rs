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

pub fn parse(line: &str, blkparse: bool) -> Option<Line<'_>> {
    let b = line.as_bytes();
    let mut toks: [&[u8]; 16] = [&[]; 16];
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
            i += 1;
        }
        if i > start {
            if n == toks.len() {
                return None;
            }
            toks[n] = &b[start..i];
            n += 1;
        }
    }
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
    digits::<u64>(&frac[..frac.len().min(18)])?;
    let pid = digits(toks[k + 1])?;
    if !short_action(toks[k + 2]) {
        return None;
    }
    let act = std::str::from_utf8(toks[k + 2]).ok()?;
    let rwbs = std::str::from_utf8(toks[k + 3]).ok()?;
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
    ln.set_bracket(Some(std::str::from_utf8(br).ok()?));
    Some(ln)
}
