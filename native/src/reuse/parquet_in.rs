//! `reuse --events FILE...`: the requests of events files read here (parquet_read.rs), in the order the Python
//! side feeds them on stdin (src/blkscope/analysis/windows.py): every file's events sorted by time_ns, ties in
//! file order (files in the order given, rows in file order), nulls in time_ns left out. That is one stable
//! sort of the whole trace, so the windows below only bound memory and need not be the Python's: time
//! windows of about `rows_per_window` events, each reading the row groups that overlap it (row group
//! time ranges from the footer's statistics) and keeping a decoded group until the windows pass its end.

use std::path::PathBuf;

use crate::parquet_read::{Error, Ints, Keys, ParquetFile};

/// One request as the pass takes it: class bit 0 write, bit 1 metadata.
#[derive(Clone, Copy)]
pub struct Req {
    pub t: i64,
    pub s: i64,
    pub n: i64,
    pub c: u8,
}

// the columns read, in this order
const COLS: [(&str, bool); 5] = [("time_ns", true), ("sector", true), ("nsectors", true), ("action", false), ("rwbs", false)];
const NO_DATA: u8 = 255;

/// The class of an RWBS string as src/blkscope/analysis/reuse.py `_class_expr` computes it (write: W without
/// R; metadata: M), or NO_DATA without R or W (`_has_data`).
fn class(rwbs: &[u8]) -> u8 {
    let has = |b: u8| rwbs.contains(&b);
    if !has(b'R') && !has(b'W') {
        return NO_DATA;
    }
    (!has(b'R') && has(b'W')) as u8 + 2 * has(b'M') as u8
}

pub struct Source {
    files: Vec<ParquetFile>,
    /// (file, row group, min time, max time) of the groups with times, in file order
    groups: Vec<(usize, usize, i64, i64)>,
    pub t0: i64,
    t1: i64,
    rows: usize,
    group_rows: usize,
    /// rows of the row groups without a time (left out of `groups`)
    pub untimed_rows: usize,
}

#[derive(Default)]
struct Scratch {
    buf: Vec<u8>,
    t: Ints,
    s: Ints,
    n: Ints,
    a: Keys,
    r: Keys,
    idx: Vec<u32>,
    /// requests the pass leaves out that `page_counts` (src/blkscope/analysis/popularity/frequency.py) counts:
    /// of the action, with data, but without a time or with a negative sector
    odd: usize,
}

impl Source {
    /// Open every file (footers checked before any data is read: a refusal comes first).
    pub fn open(paths: &[PathBuf]) -> Result<Source, Error> {
        let files = paths.iter().map(|p| ParquetFile::open(p, &COLS)).collect::<Result<Vec<_>, _>>()?;
        let mut src = Source { files, groups: vec![], t0: 0, t1: 0, rows: 0, group_rows: 0, untimed_rows: 0 };
        let mut sc = Scratch::default();
        for (k, f) in src.files.iter().enumerate() {
            for (g, (rows, chunks)) in f.groups.iter().enumerate() {
                src.rows += rows;
                src.group_rows = src.group_rows.max(*rows);
                let mm = match chunks[0].min_max {
                    Some(mm) => Some(mm),
                    None if *rows > 0 => {
                        // older files: no statistics for time_ns, so one read of the column (as windows.py)
                        f.ints(g, 0, &mut sc.buf, &mut sc.t)?;
                        let v = sc.t.v.iter().zip(&sc.t.ok).filter(|x| *x.1).map(|x| *x.0);
                        v.clone().min().zip(v.max())
                    }
                    None => None,
                };
                match mm {
                    Some((lo, hi)) => src.groups.push((k, g, lo, hi)),
                    None => src.untimed_rows += rows,
                }
            }
        }
        src.t0 = src.groups.iter().map(|g| g.2).min().unwrap_or(0);
        src.t1 = src.groups.iter().map(|g| g.3).max().unwrap_or(0);
        Ok(src)
    }

    /// The requests of `action` events (with data: nsectors > 0, a sector >= 0, R or W in RWBS) of row group
    /// `g`, in file order.
    fn decode(&self, g: usize, action: &[u8], sc: &mut Scratch, out: &mut Vec<Req>) -> Result<(), Error> {
        let (k, gi, _, _) = self.groups[g];
        let f = &self.files[k];
        out.clear();
        f.keys(gi, 3, &mut sc.buf, &mut sc.a)?;
        // per dictionary entry once, not per event; the last slot stands for null
        let mut act: Vec<bool> = sc.a.dict.iter().map(|d| d == action).collect();
        if !act.contains(&true) {
            return Ok(());
        }
        act.push(false);
        f.keys(gi, 4, &mut sc.buf, &mut sc.r)?;
        let mut cls: Vec<u8> = sc.r.dict.iter().map(|d| class(d)).collect();
        cls.push(NO_DATA);
        f.ints(gi, 0, &mut sc.buf, &mut sc.t)?;
        f.ints(gi, 1, &mut sc.buf, &mut sc.s)?;
        f.ints(gi, 2, &mut sc.buf, &mut sc.n)?;
        // first the rows of the action (a fraction of them: one tight pass over its keys), then the other
        // tests on those rows alone. Both passes without branches: every row is written and kept or
        // overwritten (the kept rows follow no pattern a branch predictor learns)
        let (na, nr) = (act.len() - 1, cls.len() - 1);
        let rows = sc.t.v.len();
        let (t, s, n) = (&sc.t, &sc.s, &sc.n);
        let (ak, rk) = (&sc.a.k[..rows], &sc.r.k[..rows]);
        let (tv, sv, nv) = (&t.v[..rows], &s.v[..rows], &n.v[..rows]);
        let (to, so, no) = (&t.ok[..rows], &s.ok[..rows], &n.ok[..rows]);
        let idx = &mut sc.idx;
        idx.clear();
        idx.reserve(rows);
        let (spare, mut m) = (idx.spare_capacity_mut(), 0);
        for (i, &k) in ak.iter().enumerate() {
            // m <= i < rows <= spare.len()
            spare[m].write(i as u32);
            m += act[(k as usize).min(na)] as usize;
        }
        // SAFETY: the first m slots were written above
        unsafe { idx.set_len(m) };
        out.reserve(m);
        let dst = out.spare_capacity_mut();
        let (mut len, mut odd) = (0, 0);
        for &i in idx.iter() {
            let i = i as usize;
            let c = cls[(rk[i] as usize).min(nr)];
            let (s, n) = (sv[i], nv[i]);
            let data = (c != NO_DATA) & so[i] & no[i] & (n > 0);
            let keep = data & to[i] & (s >= 0);
            odd += (data & !keep) as usize;
            // len <= the rows seen < m <= dst.len()
            dst[len].write(Req { t: tv[i], s, n, c });
            len += keep as usize;
        }
        sc.odd += odd;
        // SAFETY: the first len slots of the spare capacity were written above
        unsafe { out.set_len(len) };
        Ok(())
    }

    /// The requests of every row group in file order, a group at a time, to `each`; and how many requests of
    /// the action with data it left out for a missing time or a negative sector (Scratch::odd).
    pub fn requests_unordered(&self, action: &[u8], mut each: impl FnMut(&[Req])) -> Result<usize, Error> {
        let (mut sc, mut reqs) = (Scratch::default(), vec![]);
        for g in 0..self.groups.len() {
            self.decode(g, action, &mut sc, &mut reqs)?;
            each(&reqs);
        }
        Ok(sc.odd)
    }

    /// Every request in time order, a window at a time, to `emit`.
    pub fn requests(&self, action: &[u8], rows_per_window: usize,
                    mut emit: impl FnMut(Vec<Req>) -> std::io::Result<()>) -> Result<(), Error> {
        let rpw = rows_per_window.max(8 * self.group_rows).max(1);
        let n = self.rows.div_ceil(rpw).max(1) as i128;
        let (t0, span) = (self.t0 as i128, self.t1 as i128 + 1 - self.t0 as i128);
        let edge = |k: i128| (t0 + span * k / n) as i64;
        let mut cache: Vec<Option<Vec<Req>>> = vec![None; self.groups.len()];
        let (mut sc, mut win) = (Scratch::default(), Vec::new());
        for k in 0..n {
            let (lo, hi) = (edge(k), edge(k + 1));
            win.clear();
            for (g, &(_, _, a, b)) in self.groups.iter().enumerate() {
                if a >= hi || b < lo {
                    continue;
                }
                if cache[g].is_none() {
                    let mut v = vec![];
                    self.decode(g, action, &mut sc, &mut v)?;
                    cache[g] = Some(v);
                }
                let reqs = cache[g].as_ref().unwrap();
                if a >= lo && b < hi {
                    win.extend_from_slice(reqs);
                } else {
                    win.extend(reqs.iter().filter(|r| r.t >= lo && r.t < hi));
                }
                if b < hi {
                    cache[g] = None; // no later window overlaps it
                }
            }
            if !win.is_sorted_by_key(|r| r.t) {
                win.sort_by_key(|r| r.t); // stable: ties keep file order
            }
            if !win.is_empty() {
                let cap = win.capacity();
                emit(std::mem::replace(&mut win, Vec::with_capacity(cap)))?;
            }
        }
        Ok(())
    }
}
