//! blkparse text and tracefs blk text -> events. Not ported yet.

use std::path::PathBuf;

use crate::report::{Fail, Report};
use crate::sink::Sink;

pub fn read_blkparse(inputs: &[PathBuf], _sink: &mut Sink, _report: &mut Report, _progress: bool) -> Result<(), Fail> {
    Err(Fail::new(&inputs[0], None, "the native blkparse reader is not built yet"))
}

pub fn read_ftrace(inputs: &[PathBuf], _sink: &mut Sink, _report: &mut Report, _progress: bool) -> Result<(), Fail> {
    Err(Fail::new(&inputs[0], None, "the native ftrace reader is not built yet"))
}
