//! Binary blktrace (v7/v8) -> events. Not ported yet.

use std::path::PathBuf;

use crate::report::{Fail, Report};
use crate::sink::Sink;

pub fn read(inputs: &[PathBuf], _sink: &mut Sink, _report: &mut Report, _progress: bool) -> Result<(), Fail> {
    Err(Fail::new(&inputs[0], None, "the native blktrace reader is not built yet"))
}
