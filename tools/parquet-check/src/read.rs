//! `parquet-check read FILE.parquet OUT.arrow STATS.json`: arrow-rs's Parquet reader reads every column of
//! FILE and writes the values to an Arrow IPC file (tests compare them with polars' and DuckDB's reading),
//! and the footer as arrow-rs decodes it (schema, row groups, each column chunk's statistics) to STATS.json.

use std::fs::File;
use std::path::Path;

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, StringArray, UInt32Array, UInt64Array};
use arrow_ipc::writer::FileWriter;
use parquet::arrow::arrow_reader::statistics::StatisticsConverter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{json, Value};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// One statistics array (a value per row group) as JSON; null where the footer has none.
fn values(a: &ArrayRef) -> Res<Vec<Value>> {
    macro_rules! each {
        ($t:ty) => {{
            let a = a.as_any().downcast_ref::<$t>().ok_or("statistics of an unexpected type")?;
            (0..a.len()).map(|i| if a.is_null(i) { Value::Null } else { json!(a.value(i)) }).collect()
        }};
    }
    use arrow_schema::DataType::*;
    Ok(match a.data_type() {
        UInt32 => each!(UInt32Array),
        Int32 => each!(Int32Array),
        Int64 => each!(Int64Array),
        UInt64 => each!(UInt64Array),
        Utf8 => each!(StringArray),
        Null => vec![Value::Null; a.len()],
        t => return Err(format!("statistics of type {t} are not handled").into()),
    })
}

pub fn run(path: &Path, ipc: &Path, stats: &Path) -> Res<()> {
    let b = ParquetRecordBatchReaderBuilder::try_new(File::open(path)?)?.with_batch_size(1 << 16);
    let meta = b.metadata().clone();
    let (schema, pschema) = (b.schema().clone(), b.parquet_schema().clone());
    let mut cols = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        let conv = StatisticsConverter::try_new(f.name(), &schema, &pschema)?;
        let groups = meta.row_groups().iter();
        let c = pschema.column(i);
        // "present": the chunk carries min and max (arrow-rs reports a missing one as null)
        let present: Vec<bool> = meta.row_groups().iter().map(|g| {
            g.column(i).statistics().is_some_and(|s| s.min_bytes_opt().is_some() && s.max_bytes_opt().is_some())
        }).collect();
        cols.push(json!({
            "name": f.name(),
            "arrow_type": f.data_type().to_string(),
            "physical": c.physical_type().to_string(),
            "logical": format!("{:?}", c.logical_type_ref()),
            "min": values(&conv.row_group_mins(groups.clone())?)?,
            "max": values(&conv.row_group_maxes(groups.clone())?)?,
            "null_count": conv.row_group_null_counts(groups)?.iter().collect::<Vec<_>>(),
            "has_min_max": present,
        }));
    }
    let mut w = FileWriter::try_new(File::create(ipc)?, &schema)?;
    let mut rows = 0usize;
    for batch in b.build()? {
        let batch = batch?;
        rows += batch.num_rows();
        w.write(&batch)?;
    }
    w.finish()?;
    let fm = meta.file_metadata();
    if rows as i64 != fm.num_rows() {
        return Err(format!("{}: read {rows} rows, the footer says {}", path.display(), fm.num_rows()).into());
    }
    let doc = json!({
        "rows": rows,
        "created_by": fm.created_by(),
        "row_groups": meta.row_groups().iter().map(|g| g.num_rows()).collect::<Vec<_>>(),
        "columns": cols,
    });
    std::fs::write(stats, serde_json::to_vec_pretty(&doc)?)?;
    Ok(())
}
