//! The Parquet writer's output: page bodies are encoded straight into `bodies`, headers and other small
//! parts copied into `heads`, and the parts go to the file in their order with writev once about FLUSH
//! bytes are pending. A BufWriter copied every encoded body into its buffer first (the output's 98 MB
//! on the bench set, bench/RESULTS.md).

use std::fs::File;
use std::io::{self, IoSlice, Write};

/// Pending bytes that trigger a write (the BufWriter's buffer was 1 MB).
const FLUSH: usize = 1 << 20;

pub struct Gather {
    /// None: parts stay queued until `drain` (a Cols::Second writer's row group, for the file's writer)
    file: Option<File>,
    heads: Vec<u8>,
    /// encode page bodies at its end; `body(from)` queues bytes [from..] of it
    pub bodies: Vec<u8>,
    /// queued ranges in file order: (in heads, not bodies; start; end)
    parts: Vec<(bool, usize, usize)>,
}

impl Gather {
    pub fn new(file: File) -> Gather {
        Gather { file: Some(file), heads: Vec::new(), bodies: Vec::new(), parts: Vec::new() }
    }

    /// Parts kept in memory, taken by `drain`.
    pub fn memory() -> Gather {
        Gather { file: None, heads: Vec::new(), bodies: Vec::new(), parts: Vec::new() }
    }

    /// The queued parts' bytes in order, appended to `out` (memory mode).
    pub fn drain(&mut self, out: &mut Vec<u8>) {
        for &(h, a, b) in &self.parts {
            out.extend_from_slice(if h { &self.heads[a..b] } else { &self.bodies[a..b] });
        }
        self.heads.clear();
        self.bodies.clear();
        self.parts.clear();
    }

    /// Write what is queued, then `b`.
    pub fn write_after(&mut self, b: &[u8]) -> io::Result<()> {
        self.flush()?;
        self.file.as_mut().expect("a file to write").write_all(b)
    }

    /// Queue a copy of small bytes (a page header, the footer).
    pub fn small(&mut self, b: &[u8]) {
        let a = self.heads.len();
        self.heads.extend_from_slice(b);
        self.queue(true, a, self.heads.len());
    }

    /// Queue bodies[from..] (encoded since `from` was its length), writing when enough is pending.
    pub fn body(&mut self, from: usize) -> io::Result<()> {
        self.queue(false, from, self.bodies.len());
        if self.file.is_some() && self.bodies.len() + self.heads.len() >= FLUSH {
            self.flush()?;
        }
        Ok(())
    }

    fn queue(&mut self, head: bool, a: usize, b: usize) {
        match self.parts.last_mut() {
            Some(last) if last.0 == head && last.2 == a => last.2 = b,
            _ if a < b => self.parts.push((head, a, b)),
            _ => {}
        }
    }

    /// Write what is queued.
    pub fn flush(&mut self) -> io::Result<()> {
        let Some(file) = self.file.as_mut() else { return Ok(()) };
        let (heads, bodies) = (&self.heads, &self.bodies);
        let mut v: Vec<IoSlice> =
            self.parts.iter().map(|&(h, a, b)| IoSlice::new(if h { &heads[a..b] } else { &bodies[a..b] })).collect();
        let mut s = &mut v[..];
        while !s.is_empty() {
            match file.write_vectored(s) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::WriteZero, "failed to write the output")),
                Ok(n) => IoSlice::advance_slices(&mut s, n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.heads.clear();
        self.bodies.clear();
        self.parts.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_reach_the_file_in_queue_order_across_flushes() {
        let path = std::env::temp_dir().join(format!("gather-test-{}", std::process::id()));
        let mut g = Gather::new(File::create(&path).unwrap());
        let mut want = Vec::new();
        for i in 0..40u8 {
            // a header, then a body of 64 KB encoded in place: several FLUSH-sized writes
            g.small(&[b'h', i]);
            let from = g.bodies.len();
            g.bodies.extend(std::iter::repeat_n(i, 1 << 16));
            g.body(from).unwrap();
            want.extend_from_slice(&[b'h', i]);
            want.extend(std::iter::repeat_n(i, 1 << 16));
        }
        g.small(b"end");
        g.flush().unwrap();
        want.extend_from_slice(b"end");
        assert_eq!(std::fs::read(&path).unwrap(), want);
        std::fs::remove_file(&path).unwrap();
    }
}
