//! The events table (schemas.EVENTS plus trace_text.EVENT_EXTRAS) as columns that decoders fill row by
//! row and the Parquet writer (parquet.rs) encodes one row group at a time.
//!
//! Dense columns hold one value per row; nullable ones also a validity flag. The payload extras are
//! null in almost every row, so they are sparse: (row, value) pairs only for the rows that have one.

use std::collections::HashMap;

/// A column with a value in (almost) every row. Validity is kept only once a null arrives (most columns
/// never have one, and a flag per row per column costs as much as the value).
#[derive(Default)]
pub struct Col<T> {
    pub v: Vec<T>,
    ok: Vec<bool>,
    nulls: bool,
}

impl<T: Copy + Default> Col<T> {
    #[inline(always)]
    pub fn push(&mut self, x: T) {
        self.v.push(x);
        if self.nulls {
            self.ok.push(true);
        }
    }
    #[inline]
    pub fn push_null(&mut self) {
        self.materialize(self.v.len());
        self.v.push(T::default());
        self.ok.push(false);
    }
    #[inline(always)]
    pub fn push_opt(&mut self, x: Option<T>) {
        match x {
            Some(x) => self.push(x),
            None => self.push_null(),
        }
    }
    /// Flags of the last `flags.len()` values, which were appended to `v` already.
    pub fn extend_valid(&mut self, flags: &[bool]) {
        if self.nulls || flags.contains(&false) {
            self.materialize(self.v.len() - flags.len());
            self.ok.extend_from_slice(flags);
        }
    }
    /// The last `n` values, appended to `v` already, are all valid.
    pub fn extend_all_valid(&mut self, n: usize) {
        if self.nulls {
            self.ok.extend(std::iter::repeat_n(true, n));
        }
    }
    fn materialize(&mut self, rows: usize) {
        if !self.nulls {
            self.ok.clear();
            self.ok.resize(rows, true);
            self.nulls = true;
        }
    }
    /// Validity of every row, or None when every row has a value.
    pub fn valid(&self) -> Option<&[bool]> {
        self.nulls.then_some(self.ok.as_slice())
    }
    fn clear(&mut self) {
        self.v.clear();
        self.ok.clear();
        self.nulls = false;
    }
    /// Room for `n` more rows of values and of validity flags.
    fn reserve(&mut self, n: usize) {
        self.v.reserve(n);
        self.ok.reserve(n);
    }
    /// `push` without capacity checks, for the text fast path (2.6% fewer of its instructions, ~8% less CPU:
    /// bench/RESULTS.md, session 4).
    /// SAFETY: the row group has room: fewer rows than Events was created for (Sink flushes at that size).
    #[inline(always)]
    pub unsafe fn put(&mut self, x: T) {
        let n = self.v.len();
        debug_assert!(n < self.v.capacity() && self.ok.len() < self.ok.capacity());
        self.v.as_mut_ptr().add(n).write(x);
        self.v.set_len(n + 1);
        if self.nulls {
            let k = self.ok.len();
            self.ok.as_mut_ptr().add(k).write(true);
            self.ok.set_len(k + 1);
        }
    }
    /// SAFETY: as for `put`.
    #[inline(always)]
    pub unsafe fn put_opt(&mut self, x: Option<T>) {
        match x {
            Some(x) => self.put(x),
            None => self.push_null(), // rare in most columns; checked
        }
    }
}

/// The next `n` slots of a vector's spare capacity, for a loop that fills several columns at once; the
/// caller sets the length once every slot is written.
pub trait Spare<T> {
    fn spare(&mut self, n: usize) -> &mut [std::mem::MaybeUninit<T>];
}

impl<T> Spare<T> for Vec<T> {
    #[inline]
    fn spare(&mut self, n: usize) -> &mut [std::mem::MaybeUninit<T>] {
        self.reserve(n);
        &mut self.spare_capacity_mut()[..n]
    }
}

/// Values in a few rows only: `rows` ascending, within the current row group.
#[derive(Default)]
pub struct Sparse<T> {
    pub rows: Vec<u32>,
    pub v: Vec<T>,
}

impl<T> Sparse<T> {
    #[inline]
    pub fn set(&mut self, row: usize, x: T) {
        self.rows.push(row as u32);
        self.v.push(x);
    }
    fn clear(&mut self) {
        self.rows.clear();
        self.v.clear();
    }
}

/// Interned strings: keys index `dict`, which lives across row groups (the writer writes the used part).
#[derive(Default)]
pub struct Dict {
    pub values: Vec<String>,
    index: HashMap<String, u32>,
}

impl Dict {
    /// A dictionary whose keys are the positions of `values` (which may repeat: codes -> names).
    pub fn with_values(values: &[&str]) -> Dict {
        let mut d = Dict::default();
        for (k, v) in values.iter().enumerate() {
            d.values.push((*v).to_owned());
            d.index.entry((*v).to_owned()).or_insert(k as u32);
        }
        d
    }
    /// Catch up with `ahead`, a later state of the same dictionary (dictionaries only grow): the entries
    /// it added since this one was copied, with the same keys.
    pub fn follow(&mut self, ahead: &Dict) {
        for (k, v) in ahead.values.iter().enumerate().skip(self.values.len()) {
            self.values.push(v.clone());
            self.index.entry(v.clone()).or_insert(k as u32);
        }
    }
    #[inline]
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        let k = self.values.len() as u32;
        self.values.push(s.to_owned());
        self.index.insert(s.to_owned(), k);
        k
    }
}

/// A dense string column as keys into a Dict.
#[derive(Default)]
pub struct StrCol {
    pub keys: Col<u32>,
    pub dict: Dict,
}

impl StrCol {
    #[inline]
    pub fn push_key(&mut self, k: u32) {
        self.keys.push(k);
    }
    #[inline]
    pub fn push_null(&mut self) {
        self.keys.push_null();
    }
}

/// A sparse string column (cdb, message).
#[derive(Default)]
pub struct SparseStr {
    pub keys: Sparse<u32>,
    pub dict: Dict,
}

impl SparseStr {
    pub fn set(&mut self, row: usize, s: &str) {
        let k = self.dict.intern(s);
        self.keys.set(row, k);
    }
}

/// The columns a Sink fills and writes. On two CPUs a binary trace is read twice, by two threads that each
/// fill and encode a part of the columns and share only the encoded bytes (blktrace/mod.rs says why).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Cols {
    All,
    /// the columns before SPLIT (dev_major .. action): the file's writer
    First,
    /// SPLIT and after (rwbs .. cgroup_id): encoded for the First's writer to append
    Second,
}

/// First column of Cols::Second: the two parts' reads took 0.20 and 0.21 s on the bench set.
pub const SPLIT: usize = 7;

impl Cols {
    /// Whether column i (EVENT_COLUMNS order) is one of these.
    pub fn has(self, i: usize) -> bool {
        match self {
            Cols::All => true,
            Cols::First => i < SPLIT,
            Cols::Second => i >= SPLIT,
        }
    }
}

/// One row group of the events table, in EVENT_COLUMNS order.
#[derive(Default)]
pub struct Events {
    pub dev_major: Col<u32>,
    pub dev_minor: Col<u32>,
    pub cpu: Col<u32>,
    pub seq: Col<i64>,
    pub time_ns: Col<i64>,
    pub pid: Col<u32>,
    pub action: StrCol,
    pub rwbs: StrCol,
    pub sector: Col<i64>,
    pub nsectors: Col<i64>,
    pub error: Col<i32>,
    pub process: StrCol,
    pub remap_dev_major: Sparse<u32>,
    pub remap_dev_minor: Sparse<u32>,
    pub remap_sector: Sparse<i64>,
    pub split_sector: Sparse<i64>,
    pub unplug_count: Sparse<i64>,
    pub pc_bytes: Sparse<i64>,
    pub cdb: SparseStr,
    pub message: SparseStr,
    pub cgroup_id: Sparse<u64>,
}

/// Rows per row group: big enough to amortise per-group costs, small enough that the columns (~4 MB)
/// stay in cache between the decoder filling them and the writer encoding them (binary bench set: 1<<16
/// rows 0.51 s CPU, 1<<20 rows 0.60 s; file 0.3% larger; RSS 14 MB instead of 93 MB).
pub const ROW_GROUP: usize = 1 << 16;

impl Events {
    /// Room for row groups of `group` rows (Col::put relies on it).
    pub fn new(group: usize) -> Events {
        let mut e = Events::default();
        e.reserve(group);
        e
    }

    /// Rows so far in this row group (every decoder pushes all dense columns for each row; a Cols::Second
    /// reader fills time_ns too, for this count).
    #[inline]
    pub fn len(&self) -> usize {
        self.time_ns.v.len()
    }


    /// Row index the next pushed row gets (for Sparse::set before or after pushing the dense columns).
    #[inline]
    pub fn row(&self) -> usize {
        self.len()
    }

    fn reserve(&mut self, n: usize) {
        self.dev_major.reserve(n);
        self.dev_minor.reserve(n);
        self.cpu.reserve(n);
        self.seq.reserve(n);
        self.time_ns.reserve(n);
        self.pid.reserve(n);
        self.action.keys.reserve(n);
        self.rwbs.keys.reserve(n);
        self.sector.reserve(n);
        self.nsectors.reserve(n);
        self.error.reserve(n);
        self.process.keys.reserve(n);
    }

    /// Dictionaries as in `cur`, the row group this one takes over from (Sink's writer thread).
    pub fn follow(&mut self, cur: &Events) {
        self.action.dict.follow(&cur.action.dict);
        self.rwbs.dict.follow(&cur.rwbs.dict);
        self.process.dict.follow(&cur.process.dict);
        self.cdb.dict.follow(&cur.cdb.dict);
        self.message.dict.follow(&cur.message.dict);
    }

    /// Empty the rows, keep dictionaries and capacity.
    pub fn clear(&mut self) {
        self.dev_major.clear();
        self.dev_minor.clear();
        self.cpu.clear();
        self.seq.clear();
        self.time_ns.clear();
        self.pid.clear();
        self.action.keys.clear();
        self.rwbs.keys.clear();
        self.sector.clear();
        self.nsectors.clear();
        self.error.clear();
        self.process.keys.clear();
        self.remap_dev_major.clear();
        self.remap_dev_minor.clear();
        self.remap_sector.clear();
        self.split_sector.clear();
        self.unplug_count.clear();
        self.pc_bytes.clear();
        self.cdb.keys.clear();
        self.message.keys.clear();
        self.cgroup_id.clear();
    }

    /// Every dense column of `cols` has one entry per row (a decoder bug otherwise).
    pub fn check(&self, cols: Cols) {
        let n = self.len();
        let lens: [usize; 11] = [
            self.dev_major.v.len(),
            self.dev_minor.v.len(),
            self.cpu.v.len(),
            self.seq.v.len(),
            self.pid.v.len(),
            self.action.keys.v.len(),
            self.rwbs.keys.v.len(),
            self.sector.v.len(),
            self.nsectors.v.len(),
            self.error.v.len(),
            self.process.keys.v.len(),
        ];
        // (time_ns, column 4, is len(): not in the list)
        let cols_of = [0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11];
        assert!(lens.iter().zip(cols_of).all(|(&l, i)| l == n || !cols.has(i)),
                "events columns of unequal length: {lens:?} vs {n}");
    }
}
