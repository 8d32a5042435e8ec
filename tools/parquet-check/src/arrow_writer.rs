//! The events table written by arrow-rs's ArrowWriter (the `parquet` crate), at its best settings for this
//! table, for the writer bench (bench/parquet_writer/): the same Parquet as ours as far as arrow-rs allows
//! (data page v1, uncompressed, no Arrow schema, chunk statistics on the integer columns only), with
//! dictionary encoding for the strings and DELTA_BINARY_PACKED for the integers.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::types::UInt32Type;
use arrow_array::{ArrayRef, ArrowPrimitiveType, DictionaryArray, PrimitiveArray, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::errors::Result;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use arrow_array::builder::BooleanBufferBuilder;
use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
use arrow_buffer::NullBuffer;

use crate::events::{Col, Dict, Events, Sparse, SparseStr, StrCol};

/// EVENT_COLUMNS of readers/trace_text.py, in order, with their Arrow types (as native/src/parquet.rs).
fn schema() -> SchemaRef {
    use DataType::*;
    let s = Dictionary(Box::new(UInt32), Box::new(Utf8));
    let cols: [(&str, DataType); 21] = [
        ("dev_major", UInt32), ("dev_minor", UInt32), ("cpu", UInt32), ("seq", Int64), ("time_ns", Int64),
        ("pid", UInt32), ("action", s.clone()), ("rwbs", s.clone()), ("sector", Int64), ("nsectors", Int64),
        ("error", Int32), ("process", s.clone()), ("remap_dev_major", UInt32), ("remap_dev_minor", UInt32),
        ("remap_sector", Int64), ("split_sector", Int64), ("unplug_count", Int64), ("pc_bytes", Int64),
        ("cdb", s.clone()), ("message", s), ("cgroup_id", UInt64),
    ];
    Arc::new(Schema::new(cols.into_iter().map(|(n, t)| Field::new(n, t, true)).collect::<Vec<_>>()))
}

fn props(schema: &Schema, group: usize) -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_writer_version(WriterVersion::PARQUET_1_0) // data page v1, as ours
        .set_compression(Compression::UNCOMPRESSED)
        .set_max_row_group_row_count(Some(group)) // one row group per flush of the sink, as ours
        .set_data_page_row_count_limit(1 << 17) // ours: pages of 2^17 rows (a row group is one page)
        .set_data_page_size_limit(16 << 20)
        .set_write_batch_size(batch())
        .set_dictionary_enabled(false)
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_offset_index_disabled(true); // ours writes no page index
    for f in schema.fields() {
        let c = ColumnPath::from(f.name().as_str());
        p = if matches!(f.data_type(), DataType::Dictionary(..)) {
            // ours writes no string statistics
            p.set_column_dictionary_enabled(c.clone(), true).set_column_statistics_enabled(c, EnabledStatistics::None)
        } else {
            p.set_column_encoding(c, Encoding::DELTA_BINARY_PACKED)
        };
    }
    p.build()
}

/// Rows arrow-rs encodes at a time (its default 1024); PARQUET_CHECK_WRITE_BATCH overrides it (tuning runs).
fn batch() -> usize {
    std::env::var("PARQUET_CHECK_WRITE_BATCH").ok().and_then(|s| s.parse().ok()).unwrap_or(8192)
}

pub struct ArrowEvents {
    w: ArrowWriter<File>,
    schema: SchemaRef,
    /// each string column's dictionary as an Arrow array, rebuilt only when the dictionary grew
    dicts: [(usize, Option<ArrayRef>); 5],
    /// CPU time spent turning the row group into Arrow arrays (the rest of the writer's time is arrow-rs's)
    building: std::time::Duration,
}

impl ArrowEvents {
    pub fn create(path: &Path, group: usize) -> Result<ArrowEvents> {
        let schema = schema();
        let props = props(&schema, group);
        // no ARROW:schema in the footer, as ours: readers see the Parquet types only
        let opts = ArrowWriterOptions::new().with_properties(props).with_skip_arrow_metadata(true);
        let w = ArrowWriter::try_new_with_options(File::create(path)?, schema.clone(), opts)?;
        Ok(ArrowEvents { w, schema, dicts: Default::default(), building: Default::default() })
    }

    pub fn write(&mut self, ev: &Events) -> Result<()> {
        let n = ev.len();
        if n == 0 {
            return Ok(());
        }
        let t = crate::parquet::thread_cpu();
        let [d0, d1, d2, d3, d4] = &mut self.dicts;
        let cols: Vec<ArrayRef> = vec![
            dense::<UInt32Type>(&ev.dev_major),
            dense::<UInt32Type>(&ev.dev_minor),
            dense::<UInt32Type>(&ev.cpu),
            dense::<Int64Type>(&ev.seq),
            dense::<Int64Type>(&ev.time_ns),
            dense::<UInt32Type>(&ev.pid),
            strings(&ev.action, d0),
            strings(&ev.rwbs, d1),
            dense::<Int64Type>(&ev.sector),
            dense::<Int64Type>(&ev.nsectors),
            dense::<Int32Type>(&ev.error),
            strings(&ev.process, d2),
            sparse::<UInt32Type>(&ev.remap_dev_major, n),
            sparse::<UInt32Type>(&ev.remap_dev_minor, n),
            sparse::<Int64Type>(&ev.remap_sector, n),
            sparse::<Int64Type>(&ev.split_sector, n),
            sparse::<Int64Type>(&ev.unplug_count, n),
            sparse::<Int64Type>(&ev.pc_bytes, n),
            sparse_strings(&ev.cdb, n, d3),
            sparse_strings(&ev.message, n, d4),
            sparse::<UInt64Type>(&ev.cgroup_id, n),
        ];
        let batch = RecordBatch::try_new(self.schema.clone(), cols)?;
        self.building += crate::parquet::thread_cpu() - t;
        self.w.write(&batch)
    }

    pub fn finish(self) -> Result<()> {
        if std::env::var_os("BLKSCOPE_NATIVE_TIMING").is_some() {
            eprintln!("parquet-check: {:.3} s CPU building Arrow arrays", self.building.as_secs_f64());
        }
        self.w.close().map(|_| ())
    }
}

fn dense<T: ArrowPrimitiveType>(c: &Col<T::Native>) -> ArrayRef
where
    T::Native: Default,
{
    let nulls = c.valid().map(|ok| NullBuffer::from(ok));
    Arc::new(PrimitiveArray::<T>::new(c.v.clone().into(), nulls))
}

/// A sparse column spread out to one slot per row, null where it has no value.
fn spread<V: Copy + Default>(rows: &[u32], v: &[V], n: usize) -> (Vec<V>, Option<NullBuffer>) {
    let mut vals = vec![V::default(); n];
    let mut ok = BooleanBufferBuilder::new(n);
    ok.append_n(n, false);
    for (&r, &x) in rows.iter().zip(v) {
        vals[r as usize] = x;
        ok.set_bit(r as usize, true);
    }
    (vals, Some(NullBuffer::new(ok.finish())))
}

fn sparse<T: ArrowPrimitiveType>(s: &Sparse<T::Native>, n: usize) -> ArrayRef
where
    T::Native: Default,
{
    let (vals, nulls) = spread(&s.rows, &s.v, n);
    Arc::new(PrimitiveArray::<T>::new(vals.into(), nulls))
}

fn dict_values(d: &Dict, cache: &mut (usize, Option<ArrayRef>)) -> ArrayRef {
    if cache.1.is_none() || cache.0 != d.values.len() {
        *cache = (d.values.len(), Some(Arc::new(StringArray::from_iter_values(d.values.iter()))));
    }
    cache.1.clone().expect("built above")
}

fn strings(c: &StrCol, cache: &mut (usize, Option<ArrayRef>)) -> ArrayRef {
    let keys = UInt32Array::new(c.keys.v.clone().into(), c.keys.valid().map(|ok| NullBuffer::from(ok)));
    Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, dict_values(&c.dict, cache)).expect("keys index the dictionary"))
}

fn sparse_strings(c: &SparseStr, n: usize, cache: &mut (usize, Option<ArrayRef>)) -> ArrayRef {
    let (vals, nulls) = spread(&c.keys.rows, &c.keys.v, n);
    let keys = UInt32Array::new(vals.into(), nulls);
    Arc::new(DictionaryArray::<UInt32Type>::try_new(keys, dict_values(&c.dict, cache)).expect("keys index the dictionary"))
}
