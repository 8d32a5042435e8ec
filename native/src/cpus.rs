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
/// But a helper's first answer may wait this long for a CPU that was idle meanwhile: a VM's halted vCPU can take
/// milliseconds to be run again by its host. With 2 ms alone 9 of 150 two-CPU runs on an idle AMD VM planned one
/// thread (1.5x the time; bench/RESULTS.md, 2026-12-02 twenty-third session).
const WAKE: Duration = Duration::from_millis(20);

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

/// CPU c's time in its idle states so far, in µs (cpuidle's residency, counted when the CPU leaves the state):
/// None without cpuidle in sysfs.
fn idle_us(c: usize) -> Option<u64> {
    let mut sum = 0;
    for state in std::fs::read_dir(format!("/sys/devices/system/cpu/cpu{c}/cpuidle")).ok()? {
        let path = state.ok()?.path();
        if path.file_name()?.to_str()?.starts_with("state") {
            sum += std::fs::read_to_string(path.join("time")).ok()?.trim().parse::<u64>().ok()?;
        }
    }
    Some(sum)
}

fn pin(cpus: &[usize]) -> bool {
    // SAFETY: as in allowed()
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0 }
}

/// Whether CPUs a and b are apart (as when b is busy), and noted whether they are a pair to read on.
fn apart(a: usize, b: usize) -> bool {
    let (apart, busy) = probe(a, b);
    APART_PAIR.store(apart && !busy, Ordering::Relaxed);
    apart
}

/// Whether CPUs a and b are apart, and whether b is busy: this thread on a, a helper on b, a counter passed
/// between them. The thread's mask is {a, b} again when it returns (threads spawned later inherit it).
fn probe(a: usize, b: usize) -> (bool, bool) {
    let flag = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (f, s) = (flag.clone(), stop.clone());
    let idle = idle_us(b).map(|i| (i, Instant::now())); // b's idle time before this probe's threads ran there
    // the helper inherits a mask of b alone: with {a, b} it was at times woken on a while it started and waited
    // there for this thread, spinning, until a 4 ms tick (traced with sched_switch; the probe then said busy)
    if !pin(&[b]) {
        return (false, false);
    }
    let pong = std::thread::spawn(move || {
        let mut v = 1; // answer each odd value with the next even one
        while !s.load(Ordering::Relaxed) {
            if f.load(Ordering::Acquire) == v {
                f.store(v + 1, Ordering::Release);
                v += 2;
                if v < 2 * WARM {
                    // SAFETY: sched_yield takes no arguments
                    unsafe { libc::sched_yield() };
                }
            }
            std::hint::spin_loop();
        }
    });
    if !pin(&[a]) {
        stop.store(true, Ordering::Relaxed);
        let _ = pong.join();
        pin(&[a, b]);
        return (false, false);
    }
    // WARM round trips untimed (the helper's start and its move to b are not the caches' doing), then TRIPS timed
    let (mut sent, mut start, mut timed) = (0, Instant::now(), None);
    let mut woke = None; // a first answer later than PATIENCE: when it came
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
            if start.elapsed() > PATIENCE && (sent > 0 || idle.is_none() || start.elapsed() > WAKE) {
                break 'trips timed.unwrap_or(0);
            }
        }
        if let Some((before, since)) = idle.filter(|_| sent == 0 && start.elapsed() > PATIENCE) {
            // waking if b was idle for at least half of the wait; else it ran something else: busy
            let grew = idle_us(b).map_or(0, |i| i.saturating_sub(before));
            woke = Some(start.elapsed());
            if since.elapsed() > 2 * Duration::from_micros(grew) {
                break 'trips 0;
            }
            start = Instant::now();
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
    if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
        let woke = woke.map_or(String::new(), |w| format!(" (first answer after {w:?})"));
        eprintln!("blkscope-native: CPUs {a} and {b}: {answered} round trips of {trip:?}{woke}: {}",
                  if busy { "busy, one thread" } else if apart { "apart" } else { "together" });
    }
    (apart, busy)
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
    fn a_cpu_running_another_thread_is_busy() {
        // a spinning thread on b: the helper gives way to it during the warm-up, and no answer comes in time
        let before = allowed().unwrap();
        let (a, b) = (before[0], *before.last().unwrap());
        assert_ne!(a, b, "the test needs two CPUs");
        let stop = Arc::new(AtomicBool::new(false));
        let s = stop.clone();
        let hog = std::thread::spawn(move || {
            pin(&[b]);
            while !s.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        std::thread::sleep(Duration::from_millis(20)); // the hog on b, and b's idle time stopped
        pin(&[a, b]);
        let (apart, busy) = probe(a, b);
        stop.store(true, Ordering::Relaxed);
        hog.join().unwrap();
        pin(&before);
        assert!(apart && busy, "b busy: one thread");
    }

    #[test]
    fn one_cpu_twice_is_no_pair() {
        // the helper can only answer when this thread is preempted, milliseconds later: too slow to help
        let before = allowed().unwrap();
        assert!(apart(before[0], before[0]));
        pin(&before);
    }
}
