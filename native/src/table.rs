//! A Parquet writer for the small tables the program computes itself (reuse/mrc.rs: a miss-ratio curve), as
//! polars reads the table the Python side would write: every column REQUIRED (no nulls), strings (UTF8),
//! INT64 or DOUBLE; one row group, one PLAIN data page (v1, uncompressed) per column. The file is written
//! beside its path and renamed onto it, so a failed write leaves no partial table.

use std::io::Write;
use std::path::Path;

use crate::encode::plain_strings;
use crate::thrift::{self, Writer as Thrift};

pub enum Column<'a> {
    Str(Vec<&'a str>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl Column<'_> {
    fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::F64(v) => v.len(),
        }
    }
    /// Parquet's physical type (parquet.thrift: INT64 2, DOUBLE 5, BYTE_ARRAY 6).
    fn physical(&self) -> i32 {
        match self {
            Column::Str(_) => 6,
            Column::I64(_) => 2,
            Column::F64(_) => 5,
        }
    }
    fn plain(&self, out: &mut Vec<u8>) {
        match self {
            Column::Str(v) => plain_strings(out, v.iter().copied()),
            Column::I64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Column::F64(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        }
    }
}

/// Write `cols` (name, values; all of one length) to `path`.
pub fn write(path: &Path, cols: &[(&str, Column)]) -> std::io::Result<()> {
    let rows = cols.first().map_or(0, |c| c.1.len());
    assert!(cols.iter().all(|c| c.1.len() == rows), "columns of unequal length");
    let mut file = b"PAR1".to_vec();
    let mut chunks = vec![]; // (offset, size) per column
    for (_, c) in cols.iter().filter(|_| rows > 0) { // no rows: no row group (as polars writes an empty table)
        let mut body = vec![];
        c.plain(&mut body);
        let mut h = Thrift::default();
        h.i32(1, 0); // DATA_PAGE
        h.i32(2, body.len() as i32);
        h.i32(3, body.len() as i32);
        h.begin(5);
        h.i32(1, rows as i32);
        h.i32(2, 0); // PLAIN
        h.i32(3, 3); // levels RLE (none: every column REQUIRED)
        h.i32(4, 3);
        h.end();
        h.stop();
        chunks.push((file.len() as i64, (h.buf.len() + body.len()) as i64));
        file.extend_from_slice(&h.buf);
        file.extend_from_slice(&body);
    }
    let mut t = Thrift::default();
    thrift::footer_schema(&mut t, cols.len());
    for (name, c) in cols {
        t.begin_elem();
        t.i32(1, c.physical());
        t.i32(3, 0); // REQUIRED
        t.binary(4, name.as_bytes());
        if let Column::Str(_) = c {
            t.i32(6, 0); // converted type UTF8
            t.begin(10); // LogicalType: STRING
            t.begin(1);
            t.end();
            t.end();
        }
        t.end();
    }
    t.i64(3, rows as i64);
    t.list(4, thrift::STRUCT, usize::from(rows > 0));
    if rows > 0 {
        row_group(&mut t, cols, &chunks, rows);
    }
    t.binary(6, b"blkscope-native");
    t.stop();
    file.extend_from_slice(&t.buf);
    file.extend_from_slice(&(t.buf.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PAR1");
    let tmp = path.with_file_name(format!(".{}.{}.tmp", path.file_name().and_then(|n| n.to_str()).unwrap_or("table"),
                                          std::process::id()));
    let done = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(&file)).and_then(|()| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// The footer's one row group: a column chunk per column at (offset, size).
fn row_group(t: &mut Thrift, cols: &[(&str, Column)], chunks: &[(i64, i64)], rows: usize) {
    t.begin_elem();
    t.list(1, thrift::STRUCT, cols.len());
    for ((name, c), &(offset, size)) in cols.iter().zip(chunks) {
        t.begin_elem();
        t.i64(2, offset);
        t.column_meta(c.physical(), &[0, 3], name, rows as i64, size, offset); // PLAIN, RLE
        t.end();
        t.end();
    }
    t.i64(2, chunks.iter().map(|c| c.1).sum());
    t.i64(3, rows as i64);
    t.end();
}
