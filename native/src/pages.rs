//! `blkscope-native pages`: the per-page access counts of a run's events files, as `page_counts` in
//! src/blkscope/analysis/popularity/frequency.py counts them in polars (its docstring: the modes cover and
//! ssd-study, read and write by the R/W letter of RWBS, op all their sum, meta the M letter), read here
//! (reuse/parquet_in.rs) instead of exploding every request into rows and grouping them.
//!
//! Usage: blkscope-native pages --out FILE [--page-sectors 8] [--action C] [--count MODE[:class]]... --events FILE...
//! FILE holds one table per --count, in order: u64 n, then the n values of each column, little-endian: op u8
//! (0 all, 1 read, 2 write: the names' order), meta u8 (1: the request's RWBS has M; always 0 without `:class`,
//! whose counts are summed over it), page i64, count i64. Rows sorted by op, meta, count descending, page: the
//! order of frequency.py's `by_hotness`. Exit 3: a file the reader does not take, or a request it would leave
//! out that polars counts (no time, a negative sector: parquet_in.rs), so the caller counts in polars; exit 2:
//! a damaged file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::parquet_read::Error;
use crate::reuse::parquet_in::{Req, Source};
use crate::reuse::stack::PageMap;

/// One (op, meta) class's rows: op, meta, (page, count) pairs.
type Table = (u8, u8, Vec<(u64, i64)>);

struct Count {
    study: bool,
    by_class: bool,
    /// per class (bit 0 write, bit 1 metadata; without by_class only bit 0 is used): page -> accesses
    maps: [PageMap<i64>; 4],
}

impl Count {
    fn add(&mut self, r: &Req, ps: i64) {
        let first = r.s / ps; // s >= 0, n > 0: the pass's requests
        // cover: every page the sectors touch; ssd-study: ceil(n / S) pages from the first
        let last = if self.study { first + (r.n + ps - 1) / ps - 1 } else { (r.s + r.n - 1) / ps };
        let c = if self.by_class { r.c & 3 } else { r.c & 1 };
        let m = &mut self.maps[c as usize];
        for page in first..=last {
            *m.entry(page as u64).or_insert(0) += 1;
        }
    }

    /// The rows (op, meta, page, count) in by_hotness order.
    fn write(self, out: &mut impl Write) -> std::io::Result<()> {
        let [rd, wd, rm, wm] = self.maps;
        let mut tables: Vec<Table> = vec![];
        for (meta, r, w) in [(0u8, rd, wd), (1, rm, wm)] {
            let mut all: PageMap<i64> = r.clone();
            for (&p, &n) in &w {
                *all.entry(p).or_insert(0) += n;
            }
            for (op, m) in [(0u8, all), (1, r), (2, w)] {
                tables.push((op, meta, m.into_iter().collect()));
            }
        }
        tables.sort_by_key(|t| (t.0, t.1));
        for t in tables.iter_mut() {
            t.2.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        let n: usize = tables.iter().map(|t| t.2.len()).sum();
        out.write_all(&(n as u64).to_le_bytes())?;
        for t in &tables {
            out.write_all(&vec![t.0; t.2.len()])?;
        }
        for t in &tables {
            out.write_all(&vec![t.1; t.2.len()])?;
        }
        for t in &tables {
            t.2.iter().try_for_each(|&(p, _)| out.write_all(&(p as i64).to_le_bytes()))?;
        }
        for t in &tables {
            t.2.iter().try_for_each(|&(_, n)| out.write_all(&n.to_le_bytes()))?;
        }
        Ok(())
    }
}

struct Args {
    out: PathBuf,
    page_sectors: i64,
    action: String,
    counts: Vec<(bool, bool)>, // (ssd-study, by class)
    events: Vec<PathBuf>,
}

fn parse(args: Vec<String>) -> Result<Args, String> {
    let mut a = Args { out: PathBuf::new(), page_sectors: 8, action: "C".into(), counts: vec![], events: vec![] };
    let mut it = args.into_iter();
    while let Some(k) = it.next() {
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        let bad = || format!("{k}: bad value {v:?}");
        match k.as_str() {
            "--out" => a.out = PathBuf::from(&v),
            "--page-sectors" => a.page_sectors = v.parse().ok().filter(|&s: &i64| s > 0).ok_or_else(bad)?,
            "--action" => a.action = v,
            "--count" => {
                let (mode, class) = v.split_once(':').map_or((v.as_str(), false), |(m, c)| (m, c == "class"));
                if !matches!(mode, "cover" | "ssd-study") || v.contains(':') && !class {
                    return Err(bad());
                }
                a.counts.push((mode == "ssd-study", class));
            }
            "--events" => a.events.push(PathBuf::from(&v)),
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    if a.out.as_os_str().is_empty() || a.counts.is_empty() || a.events.is_empty() {
        return Err("--out FILE, one --count MODE[:class] or more and --events FILE... are required".into());
    }
    Ok(a)
}

fn run(a: &Args) -> Result<(), Error> {
    let src = Source::open(&a.events)?;
    let mut counts: Vec<Count> = a.counts.iter()
        .map(|&(study, by_class)| Count { study, by_class, maps: Default::default() })
        .collect();
    let odd = src.requests_unordered(a.action.as_bytes(), |reqs| {
        for c in counts.iter_mut() {
            reqs.iter().for_each(|r| c.add(r, a.page_sectors));
        }
    })?;
    if odd > 0 || src.untimed_rows > 0 {
        return Err(Error::Unsupported(format!(
            "{odd} requests without a time or with a negative sector, {} rows in row groups without a time",
            src.untimed_rows
        )));
    }
    let mut out = BufWriter::with_capacity(1 << 20, File::create(&a.out)?);
    for c in counts {
        c.write(&mut out)?;
    }
    Ok(out.flush()?)
}

pub fn main(args: Vec<String>) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("blkscope-native pages: {e}");
            return ExitCode::from(64);
        }
    };
    match run(&a) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blkscope-native pages: {e}");
            ExitCode::from(if matches!(e, Error::Unsupported(_)) { 3 } else { 2 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(b: &[u8]) -> Vec<(u8, u8, i64, i64)> {
        let n = u64::from_le_bytes(b[..8].try_into().unwrap()) as usize;
        let int = |k: usize, i: usize| i64::from_le_bytes(b[8 + 2 * n + k * 8 * n + 8 * i..][..8].try_into().unwrap());
        (0..n).map(|i| (b[8 + i], b[8 + n + i], int(0, i), int(1, i))).collect()
    }

    #[test]
    fn all_sums_read_and_write_and_rows_sort_by_op_meta_count_page() {
        let mut c = Count { study: false, by_class: true, maps: Default::default() };
        // page 0 read twice, page 1 written once, page 2 read as metadata; sector 7 + 2 sectors: pages 0 and 1
        for (s, n, cls) in [(0, 8, 0), (0, 8, 0), (8, 8, 1), (16, 8, 2), (7, 2, 1)] {
            c.add(&Req { t: 0, s, n, c: cls }, 8);
        }
        let mut b = vec![];
        c.write(&mut b).unwrap();
        assert_eq!(rows(&b), vec![
            (0, 0, 0, 3), (0, 0, 1, 2), (0, 1, 2, 1), (1, 0, 0, 2), (1, 1, 2, 1), (2, 0, 1, 2), (2, 0, 0, 1),
        ]);
    }

    #[test]
    fn ssd_study_counts_ceil_n_over_s_pages_from_the_first() {
        let mut c = Count { study: true, by_class: false, maps: Default::default() };
        c.add(&Req { t: 0, s: 7, n: 2, c: 3 }, 8); // one page (0), metadata summed into data
        let mut b = vec![];
        c.write(&mut b).unwrap();
        assert_eq!(rows(&b), vec![(0, 0, 0, 1), (2, 0, 0, 1)]);
    }
}
