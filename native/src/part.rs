//! One part of a trace split across jobs (`blkscope ingest --part K/N`): the options that make a part's
//! rows equal the whole trace's rows for the same events (src/blkscope/parts.py plans the parts).
//! - origin: the whole trace's time origin (absolute ns), so every part's time_ns counts from the same 0;
//! - range: the bytes [A, B) of the one input, A at a line start (text) or a record start (blktrace);
//! - part: the part sees only some CPU files of a set (no CPU-gap warning: the planner checks the set);
//! - origin_only: read until the origin is known, report it (trace.time_origin_ns), write no rows.

use std::sync::OnceLock;

#[derive(Default, Debug)]
pub struct Part {
    pub origin: Option<i64>,
    pub range: Option<(u64, u64)>,
    pub part: bool,
    pub origin_only: bool,
}

static PART: OnceLock<Part> = OnceLock::new();

pub fn set(p: Part) {
    let _ = PART.set(p);
}

pub fn get() -> &'static Part {
    PART.get_or_init(Part::default)
}
