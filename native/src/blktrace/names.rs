//! Process names from notify records. A name announced on the event's own CPU wins (pid 0 is the idle
//! task of every CPU: swapper/0, swapper/1 ...), else the pid's first name (a task that moved CPUs).
//! Lookups go through a flat pid table per CPU, rebuilt when a name arrives (names come early, events
//! by the million).

use crate::events::Dict;
use crate::fx::FxMap;

const DENSE_PIDS: u32 = 1 << 23; // tables up to 32 MB per CPU; larger pids take the hash maps

#[derive(Default)]
pub struct Names {
    // Fx, not SipHash: a set's notify records are looked up here one by one, and a tiled set repeats them by the
    // thousand (SipHash and the name's UTF-8 check were ~5.5 % of the tiled influx_keks set's one-core profile)
    by_pid: FxMap<u32, u32>,          // pid -> process dict key
    by_pid_cpu: FxMap<(u32, u32), u32>, // (pid, cpu) -> key
    tables: FxMap<u32, Vec<u32>>,     // cpu -> pid -> key + 1 (0: none)
    looked_up: FxMap<u32, u64>,       // cpu -> events handed out without a table so far
    max_pid: u32,
    pub wall: Option<(u32, u32, u64)>, // first timestamp notify: sec, nsec, at (trace time)
}

pub const NONE: u32 = u32::MAX;

/// A pid's key in a table from `Names::table` (NONE when it has no name).
#[inline(always)]
pub fn key(table: &[u32], pid: u32) -> u32 {
    table.get(pid as usize).map_or(NONE, |&k| k.wrapping_sub(1)) // 0 - 1 is NONE
}

impl Names {
    /// A notify record's name (its bytes, read as UTF-8 only when the pid is new on the CPU).
    pub fn add(&mut self, pid: u32, cpu: u32, name: &[u8], dict: &mut Dict) {
        if self.by_pid_cpu.contains_key(&(pid, cpu)) {
            return;
        }
        let k = dict.intern(&String::from_utf8_lossy(name));
        self.by_pid_cpu.insert((pid, cpu), k);
        self.by_pid.entry(pid).or_insert(k);
        self.max_pid = self.max_pid.max(pid);
        self.tables.clear();
    }

    pub fn processes(&self) -> usize {
        self.by_pid.len()
    }

    /// Build the pid table of one CPU if names changed since (then `table` finds it), once it pays: when
    /// the `events` about to be handed out and those before them without a table reach 1/256 of its size.
    /// Pids reach millions: on the 2,398 events of influx_keks the 8 tables were 88 % of the instructions.
    /// A hash lookup (`lookup`, the same key) costs many entries: at 1/32 the tiled influx_keks set (10 M
    /// events) paid 119 M instructions more for its lookups before the tables were built, at 1/256 12 M.
    pub fn build(&mut self, cpu: u32, events: u64) {
        if self.by_pid.is_empty() || self.max_pid >= DENSE_PIDS {
            return;
        }
        if !self.tables.contains_key(&cpu) {
            let seen = self.looked_up.entry(cpu).or_insert(0);
            *seen += events;
            if *seen * 256 < self.max_pid as u64 + 1 {
                return;
            }
            // zeroed by the allocator (calloc: pages untouched until a pid's entry is set), not filled with NONE:
            // influx_keks's pids reach millions, and its 8 tables were 85 MB of memset and page faults on the
            // decoder thread, 2/3 of its page faults
            let mut t = vec![0u32; self.max_pid as usize + 1];
            for (&pid, &k) in &self.by_pid {
                t[pid as usize] = k + 1;
            }
            for (&(pid, c), &k) in &self.by_pid_cpu {
                if c == cpu {
                    t[pid as usize] = k + 1;
                }
            }
            self.tables.insert(cpu, t);
        }
    }

    /// The CPU's pid table: `key(table, pid)` reads it.
    pub fn table(&self, cpu: u32) -> Option<&[u32]> {
        self.tables.get(&cpu).map(|t| t.as_slice())
    }

    pub fn lookup(&self, pid: u32, cpu: u32) -> u32 {
        self.by_pid_cpu.get(&(pid, cpu)).or_else(|| self.by_pid.get(&pid)).copied().unwrap_or(NONE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pid_table_is_built_once_it_pays_and_gives_the_keys_lookup_gives() {
        let (mut n, mut d) = (Names::default(), Dict::default());
        n.add(0, 0, b"swapper/0", &mut d);
        n.add(0, 1, b"swapper/1", &mut d);
        n.add(5, 1, b"kworker", &mut d); // announced on CPU 1 only: CPU 0's events of pid 5 get it too
        n.add(1023, 0, b"fio", &mut d);
        n.build(0, 3); // 3 events against a table of 1024 entries: not yet
        assert!(n.table(0).is_none());
        n.build(0, 1); // 4 events so far: 4 * 256 >= 1024
        let t = n.table(0).expect("built");
        for pid in 0..1100u32 {
            assert_eq!(key(t, pid), n.lookup(pid, 0), "pid {pid}");
        }
        assert_eq!((key(t, 0), key(t, 5), key(t, 7)), (d.intern("swapper/0"), d.intern("kworker"), NONE));
    }
}
