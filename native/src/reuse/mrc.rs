//! The miss-ratio-curve table (`--mrc FILE`), written by the program itself so that a curve needs no Python:
//! the rows src/blkscope/analysis/characterise/reuse_tables.py's `mrc` makes from the same profiles, with the
//! same floating-point operations in the same order (tests/test_reuse.py compares the two tables):
//! per stream with accesses, one grid of cache sizes up to its largest distinct-page estimate (GRID_LOG
//! log-spaced and GRID_LIN evenly spaced points as numpy's logspace and linspace make them, rounded half to
//! even, unique), and each profile's miss ratio there: (cold + mass at distance >= c) / total, the mass above
//! a distance summed from the far end as numpy's reversed cumsum does, the total as numpy's pairwise sum.
//! One step may differ: numpy may raise 10 to logspace's exponents with its own SIMD pow (SVML on AVX-512),
//! glibc's pow here; a last-bit difference moves a grid point only where 10^y lies within that bit of a
//! half-integer, which the tests' real traces would show as unequal tables.

use std::path::Path;

use super::profile::Summary;
use crate::table::{self, Column};

const GRID_LOG: usize = 96;
const GRID_LIN: usize = 64;
const MIB_PAGES: f64 = 256.0;

/// numpy's linspace(start, stop, n): i * step + start, the last point stop itself.
fn linspace(start: f64, stop: f64, n: usize) -> impl Iterator<Item = f64> {
    let step = (stop - start) / (n - 1) as f64;
    (0..n).map(move |i| if i == n - 1 { stop } else { i as f64 * step + start })
}

/// reuse_tables.grid(d): cache sizes 1..d+1 pages, ascending.
fn grid(d: f64) -> Vec<i64> {
    let top = (d.ceil() as i64 + 1).max(2) as f64;
    let log = linspace(0.0, top.log10(), GRID_LOG).map(|y| 10f64.powf(y));
    let mut g: Vec<i64> = log.chain(linspace(1.0, top, GRID_LIN)).map(|x| x.round_ties_even() as i64).collect();
    g.sort_unstable();
    g.dedup();
    g
}

/// numpy's sum of a contiguous float64 array (add.reduce from 0.0): pairwise, blocks of up to 128 summed in
/// 8 lanes.
fn np_sum(a: &[f64]) -> f64 {
    fn pairwise(a: &[f64]) -> f64 {
        let n = a.len();
        if n < 8 {
            a.iter().fold(-0.0, |s, x| s + x)
        } else if n <= 128 {
            let mut r: [f64; 8] = a[..8].try_into().expect("8 lanes");
            let full = n - n % 8;
            for blk in a[8..full].chunks_exact(8) {
                for (r, x) in r.iter_mut().zip(blk) {
                    *r += x;
                }
            }
            let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            a[full..].iter().fold(res, |s, x| s + x)
        } else {
            let n2 = n / 2 - (n / 2) % 8;
            pairwise(&a[..n2]) + pairwise(&a[n2..])
        }
    }
    0.0 + pairwise(a)
}

/// Profile.total and Profile.distinct_pages of the Python side.
fn total(p: &Summary) -> f64 {
    p.cold + np_sum(&p.pairs.iter().map(|x| x.1).collect::<Vec<_>>())
}

fn distinct_pages(p: &Summary) -> f64 {
    let t = total(p);
    if t != 0.0 { p.cold * (p.accesses as f64 / t) } else { 0.0 }
}

/// Profile.miss_ratio at each cache size.
fn miss_ratio(p: &Summary, sizes: &[i64]) -> Vec<f64> {
    let t = total(p);
    if t == 0.0 {
        return vec![f64::NAN; sizes.len()];
    }
    let mut above = vec![0.0; p.pairs.len() + 1]; // mass at index >= k
    let mut s = 0.0;
    for (k, &(_, m)) in p.pairs.iter().enumerate().rev() {
        s += m;
        above[k] = s;
    }
    sizes.iter().map(|&c| {
        let k = p.pairs.partition_point(|&(d, _)| d < c as f64);
        (p.cold + above[k]) / t
    }).collect()
}

/// Write the table of `streams` ((name op/class, its profiles' summaries)) to `path`.
pub fn write(path: &Path, streams: &[(&str, &[Summary])]) -> std::io::Result<()> {
    let (mut op, mut class, mut method) = (vec![], vec![], vec![]);
    let (mut rate, mut limit, mut pages, mut mib, mut miss) = (vec![], vec![], vec![], vec![], vec![]);
    for &(name, profiles) in streams {
        let (o, c) = name.split_once('/').unwrap_or((name, "all"));
        let ps: Vec<&Summary> = profiles.iter().filter(|p| p.accesses > 0).collect();
        let Some(d) = ps.iter().map(|p| distinct_pages(p)).reduce(f64::max) else { continue };
        let g = grid(d);
        for p in ps {
            let n = g.len();
            op.extend(std::iter::repeat_n(o, n));
            class.extend(std::iter::repeat_n(c, n));
            method.extend(std::iter::repeat_n(p.method, n));
            rate.extend(std::iter::repeat_n(p.rate, n));
            limit.extend(std::iter::repeat_n(p.size_limit as i64, n));
            pages.extend_from_slice(&g);
            mib.extend(g.iter().map(|&x| x as f64 / MIB_PAGES));
            miss.extend(miss_ratio(p, &g));
        }
    }
    table::write(path, &[
        ("op", Column::Str(op)), ("class", Column::Str(class)), ("method", Column::Str(method)),
        ("rate", Column::F64(rate)), ("size_limit", Column::I64(limit)), ("cache_pages", Column::I64(pages)),
        ("cache_mib", Column::F64(mib)), ("miss_ratio", Column::F64(miss)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_holds_one_to_top_ascending() {
        for d in [0.0, 1.0, 3.5, 696.0, 71041.0, 1e7] {
            let g = grid(d);
            let top = (d.ceil() as i64 + 1).max(2);
            assert_eq!((g[0], *g.last().unwrap()), (1, top), "d={d}");
            assert!(g.windows(2).all(|w| w[0] < w[1]));
            assert!(g.len() <= GRID_LOG + GRID_LIN);
        }
    }

    #[test]
    fn pairwise_sum_of_integers_is_exact_and_orders_like_numpy() {
        for n in [0, 1, 7, 8, 9, 127, 128, 129, 1000, 4097] {
            let a: Vec<f64> = (0..n).map(|i| (i % 13) as f64).collect();
            assert_eq!(np_sum(&a), a.iter().sum::<f64>(), "n={n}");
        }
        // 1e16 then fifteen 1s: summed in order each 1 is lost (1e16 + 1 rounds to 1e16); in numpy's 8 lanes
        // only lane 0's is (lanes 1-7 hold 2 each, added to 1e16 in pairs)
        let mut a = vec![1.0; 16];
        a[0] = 1e16;
        assert_eq!(np_sum(&a), 1e16 + 14.0);
        assert_eq!(a.iter().sum::<f64>(), 1e16);
    }
}
