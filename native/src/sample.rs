//! `parquet-sample`: a deterministic events table with every kind of column content (nulls, sparse
//! extras, dictionary strings, several row groups and pages), for tests of the writer by real readers.

use crate::report::Fail;
use crate::sink::Sink;

pub fn write(sink: &mut Sink, rows: usize) -> Result<(), Fail> {
    let actions = ["Q", "G", "I", "D", "C", "P", "U", "m"];
    // keys interned once, as a decoder would (a per-row string hash costs more than the row)
    let procs: Vec<u32> = (0..37).map(|k| sink.ev.process.dict.intern(&format!("proc-{k}"))).collect();
    let akeys: Vec<u32> = actions.iter().map(|a| sink.ev.action.dict.intern(a)).collect();
    let rkeys = [sink.ev.rwbs.dict.intern("WS"), sink.ev.rwbs.dict.intern("R")];
    for i in 0..rows {
        let e = &mut sink.ev;
        let row = e.row();
        let ai = (i * 7 + i / 3) % actions.len();
        let a = actions[ai];
        e.dev_major.push(if i % 1000 == 999 { 259 } else { 7 });
        e.dev_minor.push((i % 3) as u32);
        e.cpu.push((i / 100_000 % 4) as u32);
        e.seq.push(i as i64 + 1);
        e.time_ns.push((i as i64) * 1733 - 5000 + (i as i64 % 17) * 3);
        e.pid.push(u32::MAX - (i % 5) as u32);
        e.action.push_key(akeys[ai]);
        e.rwbs.push_key(rkeys[i % 2]);
        if a == "P" || a == "U" || a == "m" {
            e.sector.push_null();
            e.nsectors.push_null();
        } else {
            e.sector.push(((i as i64) * 2_654_435_761) % (1 << 40));
            e.nsectors.push((i % 256) as i64);
        }
        if a == "C" {
            e.error.push(-((i % 3) as i32));
        } else {
            e.error.push_null();
        }
        if i % 11 == 0 {
            e.process.push_null();
        } else {
            e.process.push_key(procs[i % 37]);
        }
        if i % 5 == 0 {
            e.remap_dev_major.set(row, 8);
            e.remap_dev_minor.set(row, 16 + (i % 2) as u32);
            e.remap_sector.set(row, i as i64 * 8 - 1);
        }
        if i % 97 == 0 {
            e.split_sector.set(row, i as i64 + 4);
        }
        if a == "U" {
            e.unplug_count.set(row, (i % 9) as i64);
        }
        if i % 1001 == 0 {
            e.pc_bytes.set(row, 512);
            e.cdb.set(row, "2a00000008000008");
        }
        if a == "m" && i % 2 == 0 {
            e.message.set(row, &format!("cfq{} insert", i % 4));
        }
        if i % 13 == 0 {
            e.cgroup_id.set(row, u64::MAX - i as u64);
        }
        sink.end_row()?;
    }
    Ok(())
}
