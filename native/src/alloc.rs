//! The global allocator: the system's, with two changes that cut the kernel's share of a run (page
//! faults were ~0.05 s of 0.6 s on the 10.5 M-event bench set):
//! - large blocks (column buffers, row-group scratch) are advised onto transparent huge pages, one fault
//!   per 2 MB instead of per 4 KB (a no-op where THP is off);
//! - freed memory stays in the heap (no mmap per large block, no trimming), so each row group reuses the
//!   pages of the last instead of faulting in fresh zeroed ones.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct Alloc;

const HUGE: usize = 2 << 20;
const BIG: usize = 4 << 20; // smaller blocks: the heap's 4 KB pages

/// A large block aligned to a huge page and advised onto huge pages (glibc frees it like any other).
unsafe fn alloc_huge(l: Layout) -> *mut u8 {
    let Ok(al) = Layout::from_size_align(l.size(), HUGE.max(l.align())) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a valid non-zero layout
    let p = unsafe { System.alloc(al) };
    if !p.is_null() {
        // SAFETY: advice on pages of the block just allocated; failure is harmless
        unsafe { libc::madvise(p as *mut libc::c_void, l.size().next_multiple_of(HUGE), libc::MADV_HUGEPAGE) };
    }
    p
}

unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout (or a stricter alignment)
        unsafe { if l.size() >= BIG { alloc_huge(l) } else { System.alloc(l) } }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if l.size() < BIG {
            // SAFETY: as alloc
            return unsafe { System.alloc_zeroed(l) };
        }
        // SAFETY: as alloc; the block is l.size() bytes
        unsafe {
            let p = alloc_huge(l);
            if !p.is_null() {
                std::ptr::write_bytes(p, 0, l.size());
            }
            p
        }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: glibc's free takes any block malloc or memalign handed out
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        if n < BIG {
            // SAFETY: as dealloc
            return unsafe { System.realloc(p, l, n) };
        }
        // growing past BIG: a fresh huge-page block (the copy is what realloc would do on a move anyway)
        // SAFETY: n >= BIG > 0 with the caller's alignment; p holds l.size() bytes
        unsafe {
            let q = alloc_huge(Layout::from_size_align_unchecked(n, l.align()));
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p, q, l.size().min(n));
                System.dealloc(p, l);
            }
            q
        }
    }
}

/// Keep freed memory in the heap (glibc: no mmap per large block, no trimming of the top).
pub fn keep_freed_memory() {
    // SAFETY: mallopt only tunes thresholds; called before any large allocation
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}
