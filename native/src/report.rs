//! What a reader tells ingest.json (merged into ingest.Report by blkscope/native.py), and the one error
//! that stops it: a file, a place in it (line N / byte offset N) and a message.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

#[derive(Default)]
pub struct Report {
    pub warnings: Vec<String>,
    pub unknown: BTreeMap<String, i64>,
    pub trace: Map<String, Value>,
    pub versions: Map<String, Value>,
    pub rows: i64,
}

impl Report {
    pub fn warn(&mut self, msg: impl Into<String>) {
        self.warnings.push(msg.into());
    }
    /// A list under `trace` (created empty on first use).
    pub fn trace_list(&mut self, key: &str) -> &mut Vec<Value> {
        self.trace.entry(key).or_insert_with(|| Value::Array(Vec::new())).as_array_mut().expect("a list")
    }
    pub fn count_unknown(&mut self, what: &str, n: i64) {
        *self.unknown.entry(what.to_owned()).or_insert(0) += n;
    }
    pub fn to_json(&self) -> Value {
        json!({
            "rows": {"events": self.rows},
            "warnings": self.warnings,
            "unknown": self.unknown,
            "trace": self.trace,
            "versions": self.versions,
        })
    }
}

/// Bad input: reported as `PATH: WHERE: MESSAGE` by the Python side (errors.InputError).
#[derive(Debug)]
pub struct Fail {
    pub path: String,
    pub at: Option<String>,
    pub message: String,
}

impl Fail {
    pub fn new(path: &Path, at: Option<String>, message: impl Into<String>) -> Fail {
        Fail { path: path.display().to_string(), at, message: message.into() }
    }
    pub fn offset(path: &Path, offset: u64, message: impl Into<String>) -> Fail {
        Fail::new(path, Some(format!("byte offset {offset}")), message)
    }
    pub fn io(path: &Path, e: std::io::Error) -> Fail {
        Fail::new(path, None, format!("cannot read: {e}"))
    }
    pub fn to_json(&self) -> Value {
        json!({"error": {"path": self.path, "where": self.at, "message": self.message}})
    }
}

impl fmt::Display for Fail {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.at {
            Some(a) => write!(f, "{}: {}: {}", self.path, a, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}
