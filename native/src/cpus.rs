//! How many CPUs to plan threads for: BLKSCOPE_NATIVE_THREADS=N if set (tests reach every thread layout with
//! it), else the CPUs the process may run on (std's available_parallelism follows the affinity mask:
//! `taskset -c 0` gives one). But two CPUs that pass a cache line back and forth slower than APART count as
//! one: a VM whose host runs its two vCPUs on cores that share no cache. There the threads' hand-overs (each
//! window, each row group) cross between the caches, and a two-core ingest took 2.1-2.5x as long as with the
//! vCPUs together and 1.4-1.6x one thread's time, while each core alone kept its speed (bench/RESULTS.md,
//! 2026-11-30 seventh session; bench/trace_readers/cpu_pair.c is the same probe). A binary trace is read on
//! both of two such CPUs all the same, by threads that hand over no columns (`apart_pair`, blktrace::splits).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Round trips slower than this are CPUs apart: 50-85 ns together and 330-430 ns apart on the AMD EPYC VM this
/// was first measured on (no L3 shared apart); 137-235 ns on an Intel Xeon VM whose two vCPUs share one L3, where
/// the decoder and writer threads beat both one thread and a split read (0.34 s against 0.37 s and 0.45 s,
/// bench/RESULTS.md, 2026-12-01 twelfth session). At 150 ns that VM was called apart in most runs.
const APART: Duration = Duration::from_nanos(250);
const TRIPS: u64 = 64;
const WARM: u64 = 8;
/// A second CPU that answers fewer than TRIPS / 4 timed round trips in this long (or not the WARM first ones) is
/// busy: no help either.
const PATIENCE: Duration = Duration::from_millis(2);

/// Set when the probe found two CPUs apart (answering, not busy): a binary trace is then read on both,
/// twice over, each thread with part of the columns (blktrace::splits).
static APART_PAIR: AtomicBool = AtomicBool::new(false);

/// Whether the process has two CPUs that the probe found apart (and not busy).
pub fn apart_pair() -> bool {
    cpus();
    APART_PAIR.load(Ordering::Relaxed)
}

pub fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| {
        if let Some(n) = std::env::var("BLKSCOPE_NATIVE_THREADS").ok().and_then(|v| v.parse::<usize>().ok()) {
            return n.max(1);
        }
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        let pair = if n == 2 { allowed() } else { None }; // the mask read only where a probe may follow
        match pair.as_deref() {
            Some(&[a, b]) if apart(a, b) => 1,
            _ => n,
        }
    })
}

/// The CPUs in this thread's affinity mask.
fn allowed() -> Option<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is an empty set; the kernel fills it
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } == 0;
    ok.then(|| (0..libc::CPU_SETSIZE as usize).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).collect())
}

fn pin(cpus: &[usize]) -> bool {
    // SAFETY: as in allowed()
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

/// Whether CPUs a and b are apart: this thread on a, a helper on b, a counter passed between them. The
/// thread's mask is {a, b} again when it returns (threads spawned later inherit it).
fn apart(a: usize, b: usize) -> bool {
    let flag = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (f, s) = (flag.clone(), stop.clone());
    let pong = std::thread::spawn(move || {
        if !pin(&[b]) {
            return;
        }
        let mut v = 1; // answer each odd value with the next even one
        while !s.load(Ordering::Relaxed) {
            if f.load(Ordering::Acquire) == v {
                f.store(v + 1, Ordering::Release);
                v += 2;
            }
            std::hint::spin_loop();
        }
    });
    // pinned after the spawn: a helper started with this thread's mask would wait on a for this spinning thread
    if !pin(&[a]) {
        stop.store(true, Ordering::Relaxed);
        let _ = pong.join();
        return false;
    }
    // WARM round trips untimed (the helper's start and its move to b are not the caches' doing), then TRIPS timed
    let (mut sent, mut start, mut timed) = (0, Instant::now(), None);
    let answered = 'trips: loop {
        if sent == WARM {
            (start, timed) = (Instant::now(), Some(0));
        }
        if timed == Some(TRIPS) {
            break TRIPS;
        }
        flag.store(2 * sent + 1, Ordering::Release);
        while flag.load(Ordering::Acquire) != 2 * sent + 2 {
            std::hint::spin_loop();
            if start.elapsed() > PATIENCE {
                break 'trips timed.unwrap_or(0);
            }
        }
        sent += 1;
        timed = timed.map(|t| t + 1);
    };
    let spent = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    let _ = pong.join();
    pin(&[a, b]);
    let trip = (answered > 0).then(|| spent / answered as u32);
    let busy = answered < TRIPS / 4;
    let apart = busy || trip.is_some_and(|t| t > APART);
    APART_PAIR.store(apart && !busy, Ordering::Relaxed);
    if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
        eprintln!("blkscope-native: CPUs {a} and {b}: {answered} round trips of {trip:?}: {}",
                  if busy { "busy, one thread" } else if apart { "apart" } else { "together" });
    }
    apart
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probe_gives_the_thread_its_mask_back() {
        let before = allowed().unwrap();
        let (a, b) = (before[0], *before.last().unwrap());
        pin(&[a, b]);
        apart(a, b);
        assert_eq!(allowed().unwrap(), if a == b { vec![a] } else { vec![a, b] });
        pin(&before);
    }

    #[test]
    fn one_cpu_twice_is_no_pair() {
        // the helper can only answer when this thread is preempted, milliseconds later: too slow to help
        let before = allowed().unwrap();
        assert!(apart(before[0], before[0]));
        pin(&before);
    }
}
