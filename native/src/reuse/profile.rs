//! Reuse-distance histograms of one stream of page accesses, three ways:
//! - Exact: every access through one LRU stack (stack.rs); the histogram is exact (one count per distance).
//! - SHARDS, fixed rate (Waldspurger et al., FAST'15): only pages whose hash falls below T of P = 2^24 go
//!   through the stack, at rate R = T/P; a sampled distance d stands for d/R. With `adj` (SHARDS_adj) the
//!   difference between the expected sampled accesses N*R and those seen is added at distance 0.
//! - SHARDS, fixed size: at most S pages sampled; when the sample outgrows S, the pages of the largest hash go
//!   and T drops to that hash; the counts so far are scaled by R_new/R_old (one factor kept for all of them).
//! Sampled distances land in log-spaced bins (loghist below: width 1 up to 128, then 2^(1/128), 0.54 %).

use super::stack::{mix, Stack};
use std::collections::BinaryHeap;

pub const P: u64 = 1 << 24;

/// Masses of scaled distances in bins: exact below LIN, then BINS_PER_OCTAVE per doubling. Masses are kept
/// in units of `unit` so a rescale of every count is one multiplication.
#[derive(Default)]
pub struct LogHist {
    mass: Vec<f64>,
    cold: f64,
    unit: f64,
}

const LIN: f64 = 128.0;
const BINS_PER_OCTAVE: f64 = 128.0;

impl LogHist {
    fn new() -> LogHist {
        LogHist { mass: Vec::new(), cold: 0.0, unit: 1.0 }
    }
    fn bin(x: f64) -> usize {
        if x < LIN {
            x as usize
        } else {
            LIN as usize + ((x / LIN).log2() * BINS_PER_OCTAVE) as usize
        }
    }
    /// The distance a bin stands for: its integer below LIN, its geometric middle above.
    fn value(k: usize) -> f64 {
        if (k as f64) < LIN {
            k as f64
        } else {
            LIN * ((k as f64 - LIN + 0.5) / BINS_PER_OCTAVE).exp2()
        }
    }
    fn add(&mut self, x: f64, w: f64) {
        let k = Self::bin(x);
        if k >= self.mass.len() {
            self.mass.resize(k + 1, 0.0);
        }
        self.mass[k] += w / self.unit;
    }
    fn add_cold(&mut self, w: f64) {
        self.cold += w / self.unit;
    }
    fn scale(&mut self, f: f64) {
        self.unit *= f;
    }
    fn pairs(&self) -> Vec<(f64, f64)> {
        self.mass.iter().enumerate().filter(|(_, &m)| m != 0.0).map(|(k, &m)| (Self::value(k), m * self.unit)).collect()
    }
}

pub enum Method {
    Exact { hist: Vec<u64>, cold: u64 },
    Rate { t: u64, adj: bool, hist: LogHist, sampled: u64 },
    Size { s: usize, t: u64, heap: BinaryHeap<(u64, u64)>, hist: LogHist, sampled: u64 },
}

pub struct Profile {
    stack: Stack,
    method: Method,
    accesses: u64,
}

/// What a profile hands over: the method's name and parameters, the histogram as (distance, mass) pairs in
/// increasing distance, the cold-miss mass, and counts.
pub struct Summary {
    pub method: &'static str,
    pub rate: f64,
    pub size_limit: u64,
    pub accesses: u64,
    pub sampled_accesses: u64,
    pub sampled_pages: u64,
    pub cold: f64,
    pub pairs: Vec<(f64, f64)>,
}

impl Profile {
    pub fn exact() -> Profile {
        Profile { stack: Stack::default(), method: Method::Exact { hist: Vec::new(), cold: 0 }, accesses: 0 }
    }
    pub fn rate(r: f64, adj: bool) -> Profile {
        let t = ((r * P as f64).round() as u64).clamp(1, P);
        let method = Method::Rate { t, adj, hist: LogHist::new(), sampled: 0 };
        Profile { stack: Stack::default(), method, accesses: 0 }
    }
    pub fn size(s: usize) -> Profile {
        let method = Method::Size { s: s.max(1), t: P, heap: BinaryHeap::new(), hist: LogHist::new(), sampled: 0 };
        Profile { stack: Stack::default(), method, accesses: 0 }
    }

    #[inline]
    pub fn access(&mut self, page: u64) {
        self.accesses += 1;
        match &mut self.method {
            Method::Exact { hist, cold } => match self.stack.access(page) {
                Some(d) => {
                    let d = d as usize;
                    if d >= hist.len() {
                        hist.resize(d + 1, 0);
                    }
                    hist[d] += 1;
                }
                None => *cold += 1,
            },
            Method::Rate { t, hist, sampled, .. } => {
                if mix(page) & (P - 1) < *t {
                    *sampled += 1;
                    let r = *t as f64 / P as f64;
                    match self.stack.access(page) {
                        Some(d) => hist.add(d as f64 / r, 1.0),
                        None => hist.add_cold(1.0),
                    }
                }
            }
            Method::Size { s, t, heap, hist, sampled } => {
                let h = mix(page) & (P - 1);
                if h >= *t {
                    return;
                }
                *sampled += 1;
                let r = *t as f64 / P as f64;
                if !self.stack.contains(page) {
                    heap.push((h, page));
                }
                match self.stack.access(page) {
                    Some(d) => hist.add(d as f64 / r, 1.0),
                    None => hist.add_cold(1.0),
                }
                if self.stack.len() > *s {
                    // evict every page of the largest hash; the threshold drops to it
                    let (top, _) = *heap.peek().expect("a sampled page");
                    while heap.peek().is_some_and(|&(h, _)| h == top) {
                        let (_, p) = heap.pop().expect("peeked");
                        self.stack.remove(p);
                    }
                    hist.scale(top as f64 / *t as f64);
                    *t = top;
                }
            }
        }
    }

    pub fn finish(self) -> Summary {
        let pages = self.stack.len() as u64;
        let n = self.accesses;
        match self.method {
            Method::Exact { hist, cold } => Summary {
                method: "exact", rate: 1.0, size_limit: 0, accesses: n, sampled_accesses: n, sampled_pages: pages,
                cold: cold as f64,
                pairs: hist.iter().enumerate().filter(|(_, &c)| c > 0).map(|(d, &c)| (d as f64, c as f64)).collect(),
            },
            Method::Rate { t, adj, mut hist, sampled } => {
                let r = t as f64 / P as f64;
                if adj {
                    hist.add(0.0, n as f64 * r - sampled as f64);
                }
                Summary {
                    method: if adj { "shards-adj" } else { "shards" }, rate: r, size_limit: 0, accesses: n,
                    sampled_accesses: sampled, sampled_pages: pages, cold: hist.cold * hist.unit, pairs: hist.pairs(),
                }
            }
            Method::Size { s, t, hist, sampled, .. } => Summary {
                method: "shards-size", rate: t as f64 / P as f64, size_limit: s as u64, accesses: n,
                sampled_accesses: sampled, sampled_pages: pages, cold: hist.cold * hist.unit, pairs: hist.pairs(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn miss_ratio(s: &Summary, c: f64) -> f64 {
        let total: f64 = s.cold + s.pairs.iter().map(|p| p.1).sum::<f64>();
        (s.cold + s.pairs.iter().filter(|p| p.0 >= c).map(|p| p.1).sum::<f64>()) / total
    }

    #[test]
    fn exact_histogram_by_hand() {
        let mut p = Profile::exact();
        for x in [1, 2, 3, 1, 1, 3, 2] {
            p.access(x);
        }
        let s = p.finish();
        assert_eq!((s.cold, s.pairs.clone()), (3.0, vec![(0.0, 1.0), (1.0, 1.0), (2.0, 2.0)]));
        assert_eq!(miss_ratio(&s, 2.0), 5.0 / 7.0);
    }

    #[test]
    fn rate_one_is_exact() {
        let seq: Vec<u64> = (0..50_000u64).map(|i| mix(i) % 3000).collect();
        let (mut e, mut r) = (Profile::exact(), Profile::rate(1.0, true));
        for &x in &seq {
            e.access(x);
            r.access(x);
        }
        let (e, r) = (e.finish(), r.finish());
        for c in [1.0, 10.0, 100.0, 1000.0, 2999.0] {
            // above 128 the sampled histogram is binned (0.54 %): compare at bin resolution
            assert!((miss_ratio(&e, c) - miss_ratio(&r, c)).abs() < 0.01, "c={c}");
        }
        assert_eq!(r.sampled_accesses, 50_000);
    }

    #[test]
    fn sampled_curves_are_close_on_a_skewed_stream() {
        // 400k accesses, 50k pages, skewed: SHARDS at 10 % and with 4k pages within 0.02 of the exact curve
        let seq: Vec<u64> = (0..400_000u64).map(|i| { let u = (mix(i) >> 11) as f64 / (1u64 << 53) as f64;
                                                       (u * u * 50_000.0) as u64 }).collect();
        let (mut e, mut r, mut z) = (Profile::exact(), Profile::rate(0.1, true), Profile::size(4000));
        for &x in &seq {
            e.access(x);
            r.access(x);
            z.access(x);
        }
        let (e, r, z) = (e.finish(), r.finish(), z.finish());
        assert!(z.sampled_pages <= 4000 && z.rate < 0.2);
        for c in [100.0, 1000.0, 5000.0, 20_000.0, 40_000.0] {
            assert!((miss_ratio(&e, c) - miss_ratio(&r, c)).abs() < 0.02, "rate c={c}");
            assert!((miss_ratio(&e, c) - miss_ratio(&z, c)).abs() < 0.02, "size c={c}");
        }
    }
}
