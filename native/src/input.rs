//! Input files, decompressed transparently by their magic (zstd, gzip, xz), and a progress meter.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;
use std::time::Instant;

use crate::report::Fail;

const ZSTD: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];
const GZIP: &[u8] = &[0x1f, 0x8b];
const XZ: &[u8] = &[0xfd, b'7', b'z', b'X', b'Z', 0];

fn head(path: &Path) -> io::Result<Vec<u8>> {
    let mut f = File::open(path)?;
    let mut h = vec![0u8; 6];
    let mut got = 0;
    while got < 6 {
        let k = f.read(&mut h[got..])?;
        if k == 0 {
            break;
        }
        got += k;
    }
    h.truncate(got);
    Ok(h)
}

pub fn is_compressed(path: &Path) -> Result<bool, Fail> {
    Ok(compressed(&head(path).map_err(|e| Fail::io(path, e))?))
}

/// Whether a file starting with `h` is compressed (its magic).
pub fn compressed(h: &[u8]) -> bool {
    h.starts_with(ZSTD) || h.starts_with(GZIP) || h.starts_with(XZ)
}

/// The file's bytes, decompressed when it is compressed.
pub fn open(path: &Path) -> Result<Box<dyn Read + Send>, Fail> {
    let h = head(path).map_err(|e| Fail::io(path, e))?;
    let f = File::open(path).map_err(|e| Fail::io(path, e))?;
    Ok(if h.starts_with(ZSTD) {
        Box::new(zstd::stream::read::Decoder::new(f).map_err(|e| Fail::io(path, e))?)
    } else if h.starts_with(GZIP) {
        Box::new(flate2::read::MultiGzDecoder::new(BufReader::with_capacity(1 << 16, f)))
    } else if h.starts_with(XZ) {
        Box::new(xz2::read::XzDecoder::new_multi_decoder(BufReader::with_capacity(1 << 16, f)))
    } else {
        Box::new(f)
    })
}

/// Read until `buf` is full or the stream ends (decompressors return short reads). `at`: the input's offset of
/// buf[0] (bytes read before), so that a read error names its byte offset in the input, not in this read.
pub fn fill(r: &mut dyn Read, buf: &mut [u8], path: &Path, at: u64) -> Result<usize, Fail> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Fail::new(path, Some(format!("byte offset {}", at + got as u64)), format!("cannot read: {e}"))),
        }
    }
    Ok(got)
}

/// Bytes to read for a progress meter, or None when a compressed input hides its size.
pub fn total_size(paths: &[&Path]) -> Result<Option<u64>, Fail> {
    let mut total = 0;
    for p in paths {
        if is_compressed(p)? {
            return Ok(None);
        }
        total += std::fs::metadata(p).map_err(|e| Fail::io(p, e))?.len();
    }
    Ok(Some(total))
}

/// A one-line meter on stderr (`blkscope ingest` turns it on for large inputs on a terminal).
pub struct Progress {
    on: bool,
    what: String,
    total: Option<u64>,
    done: u64,
    start: Instant,
    last: Instant,
}

impl Progress {
    pub fn new(on: bool, what: &str, total: Option<u64>) -> Progress {
        let now = Instant::now();
        Progress { on, what: what.to_owned(), total, done: 0, start: now, last: now }
    }
    pub fn add(&mut self, n: u64) {
        self.done += n;
        if self.on && self.last.elapsed().as_millis() >= 500 {
            self.last = Instant::now();
            self.draw();
        }
    }
    fn draw(&self) {
        let mb = self.done as f64 / 1e6;
        let rate = mb / self.start.elapsed().as_secs_f64().max(1e-9);
        match self.total {
            Some(t) if t > 0 => eprint!(
                "\r{}: {:.0}/{:.0} MB ({:.0}%), {:.0} MB/s   ",
                self.what,
                mb,
                t as f64 / 1e6,
                100.0 * self.done as f64 / t as f64,
                rate
            ),
            _ => eprint!("\r{}: {:.0} MB, {:.0} MB/s   ", self.what, mb, rate),
        }
    }
    pub fn finish(&self) {
        if self.on {
            self.draw();
            eprintln!();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fill;
    use std::io::{self, Read};
    use std::path::Path;

    /// Gives `ok` bytes, then fails: a read error part way through an input.
    struct FailsAfter {
        ok: usize,
    }

    impl Read for FailsAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.ok == 0 {
                return Err(io::Error::other("device error"));
            }
            let k = self.ok.min(buf.len());
            self.ok -= k;
            Ok(k)
        }
    }

    #[test]
    fn a_read_error_names_its_offset_in_the_input_not_in_this_read() {
        let mut buf = [0u8; 64];
        let e = fill(&mut FailsAfter { ok: 10 }, &mut buf, Path::new("t.blktrace.0"), 4096).unwrap_err();
        assert_eq!(e.at.as_deref(), Some("byte offset 4106"));
        assert!(e.message.contains("device error") && e.path == "t.blktrace.0");
    }
}
