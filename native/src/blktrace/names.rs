//! Process names from notify records. A name announced on the event's own CPU wins (pid 0 is the idle
//! task of every CPU: swapper/0, swapper/1 ...), else the pid's first name (a task that moved CPUs).
//! Lookups go through a flat pid table per CPU, rebuilt when a name arrives (names come early, events
//! by the million).

use std::collections::HashMap;

use crate::events::Dict;

const DENSE_PIDS: u32 = 1 << 23; // tables up to 32 MB per CPU; larger pids take the hash maps

#[derive(Default)]
pub struct Names {
    by_pid: HashMap<u32, u32>,          // pid -> process dict key
    by_pid_cpu: HashMap<(u32, u32), u32>, // (pid, cpu) -> key
    tables: HashMap<u32, Vec<u32>>,     // cpu -> pid -> key (u32::MAX: none)
    max_pid: u32,
    pub wall: Option<(u32, u32, u64)>, // first timestamp notify: sec, nsec, at (trace time)
}

pub const NONE: u32 = u32::MAX;

impl Names {
    pub fn add(&mut self, pid: u32, cpu: u32, name: &str, dict: &mut Dict) {
        if self.by_pid_cpu.contains_key(&(pid, cpu)) {
            return;
        }
        let k = dict.intern(name);
        self.by_pid_cpu.insert((pid, cpu), k);
        self.by_pid.entry(pid).or_insert(k);
        self.max_pid = self.max_pid.max(pid);
        self.tables.clear();
    }

    pub fn processes(&self) -> usize {
        self.by_pid.len()
    }

    /// Build the pid table of one CPU if names changed since (then `table` finds it).
    pub fn build(&mut self, cpu: u32) {
        if self.by_pid.is_empty() || self.max_pid >= DENSE_PIDS {
            return;
        }
        if !self.tables.contains_key(&cpu) {
            let mut t = vec![NONE; self.max_pid as usize + 1];
            for (&pid, &k) in &self.by_pid {
                t[pid as usize] = k;
            }
            for (&(pid, c), &k) in &self.by_pid_cpu {
                if c == cpu {
                    t[pid as usize] = k;
                }
            }
            self.tables.insert(cpu, t);
        }
    }

    pub fn table(&self, cpu: u32) -> Option<&[u32]> {
        self.tables.get(&cpu).map(|t| t.as_slice())
    }

    pub fn lookup(&self, pid: u32, cpu: u32) -> u32 {
        self.by_pid_cpu.get(&(pid, cpu)).or_else(|| self.by_pid.get(&pid)).copied().unwrap_or(NONE)
    }
}
