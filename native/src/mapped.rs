//! An uncompressed input mapped read-only, read window by window without read()'s copy into a buffer (that
//! copy was ~9 % of a two-thread ingest's CPU, all of it on the decoding thread: bench/RESULTS.md, 2026-12-01).
//! Pages are mapped a window ahead (MADV_POPULATE_READ: one call instead of a page fault per 64 KB) and
//! unmapped once read, 32 MB at a time (MADV_DONTNEED: they stay in the page cache; each call interrupts every
//! other CPU running the process to flush its TLB, the writer thread's too), so the process's resident memory
//! stays a few tens of MB, not the file. What mapping costs is per folio of the page cache: next to nothing
//! on the large folios a read from disk leaves, about the copy's cost on 4 KB folios (files written 4 KB at a
//! time and never evicted). BLKSCOPE_NATIVE_MAP=0 reads with read() instead.
//!
//! A file cut shorter while mapped would raise SIGBUS where read() returns its end; traces are read after
//! they are captured.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

use crate::report::Fail;

pub struct Map {
    base: *mut u8, // the mapping of the file from offset 0, page-aligned
    mapped: usize, // its length
    from: usize,   // the bytes this map reads: base[from..to]
    to: usize,
    page: usize,
}

// SAFETY: the mapping is read-only and lives until drop; the threads share it through Arc
unsafe impl Send for Map {}
unsafe impl Sync for Map {}

impl Map {
    /// Map bytes [from, to) of `path` (to clipped at its end); None when mapping is turned off or there is
    /// nothing to map (the read() path then reports an empty file as before).
    pub fn open(path: &Path, from: u64, to: u64) -> Result<Option<Map>, Fail> {
        if std::env::var("BLKSCOPE_NATIVE_MAP").is_ok_and(|v| v == "0") {
            return Ok(None);
        }
        let f = File::open(path).map_err(|e| Fail::io(path, e))?;
        let len = f.metadata().map_err(|e| Fail::io(path, e))?.len();
        let (from, to) = (from.min(len) as usize, to.min(len) as usize);
        if from >= to {
            return Ok(None);
        }
        // SAFETY: a fresh private read-only mapping of an open file; checked for failure below
        let p = unsafe { libc::mmap(std::ptr::null_mut(), to, libc::PROT_READ, libc::MAP_PRIVATE, f.as_raw_fd(), 0) };
        if p == libc::MAP_FAILED {
            return Ok(None); // a file that cannot be mapped (a pipe, a special file) is read()
        }
        // SAFETY: advice on the mapping made above (a hint: its failure changes nothing but speed)
        unsafe { libc::madvise(p, to, libc::MADV_SEQUENTIAL) };
        // SAFETY: sysconf has no preconditions
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        Ok(Some(Map { base: p as *mut u8, mapped: to, from, to, page }))
    }

    /// The file's first bytes (from offset 0, whatever range is read): its compression magic.
    pub fn head(&self) -> &[u8] {
        // SAFETY: the mapping starts at offset 0 and is `mapped` bytes long
        unsafe { std::slice::from_raw_parts(self.base, self.mapped.min(6)) }
    }

    /// The bytes read.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: [from, to) lies inside the mapping, which lives as long as self
        unsafe { std::slice::from_raw_parts(self.base.add(self.from), self.to - self.from) }
    }

    /// Page-aligned range of the mapping from the page of byte a of `bytes()` to the page of byte b: b's
    /// page included when `upto`, else left out (it holds bytes from b on).
    fn pages(&self, a: usize, b: usize, upto: bool) -> (usize, usize) {
        let (a, b) = (self.from + a, (self.from + b).min(self.mapped));
        let m = self.page - 1;
        (a & !m, if upto { (b + m) & !m } else { b & !m })
    }

    fn advise(&self, (a, b): (usize, usize), how: libc::c_int) {
        let b = b.min((self.mapped + self.page - 1) & !(self.page - 1));
        if a < b {
            // SAFETY: a page-aligned range inside the mapping; advice only (failure: the pages fault in, or stay)
            unsafe { libc::madvise(self.base.add(a) as *mut libc::c_void, b - a, how) };
        }
    }

    /// Map the pages of bytes [a, b) now (before they are read).
    pub fn populate(&self, a: usize, b: usize) {
        self.advise(self.pages(a, b, true), libc::MADV_POPULATE_READ);
    }

    /// Unmap the pages of bytes [a, b) but the page of b: read and no longer needed (they stay in the page
    /// cache). The page of a was left out of the call that ended at a: it is all before b.
    pub fn release(&self, a: usize, b: usize) {
        self.advise(self.pages(a, b, false), libc::MADV_DONTNEED);
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: the mapping made in open, unmapped once
        unsafe { libc::munmap(self.base as *mut libc::c_void, self.mapped) };
    }
}
