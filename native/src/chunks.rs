//! The column chunks the Python side streams to `blkscope-native replay` and `reuse` on stdin: u64 n, then n
//! values of each column (little-endian, fixed width); n = 0 ends the stream.

use std::io::{self, Read};

/// The next chunk's row count; 0 at the end of the stream.
pub fn rows(r: &mut impl Read) -> io::Result<usize> {
    let mut h = [0u8; 8];
    r.read_exact(&mut h)?;
    Ok(u64::from_le_bytes(h) as usize)
}

/// One column of n values of `width` bytes into buf.
pub fn read_col(r: &mut impl Read, n: usize, width: usize, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.resize(n * width, 0);
    r.read_exact(buf)
}

pub fn i64s(b: &[u8]) -> impl Iterator<Item = i64> + '_ {
    b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap()))
}
