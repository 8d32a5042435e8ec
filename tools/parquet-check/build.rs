//! Compiles native/src's modules into this crate (all but main.rs, whose sink.rs is replaced by ours):
//! the bench runs blkscope-native's own decoders and writer, and modules that native/ gains are picked up.
//! main.rs includes the list only with feature `ingest` (the tests' build compiles none of them).

use std::fmt::Write;
use std::path::Path;

fn main() {
    if std::env::var_os("CARGO_FEATURE_INGEST").is_none() {
        // the tests' build (--no-default-features): no module list to write, and native/src is not watched
        println!("cargo:rerun-if-changed=build.rs");
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../native/src").canonicalize().expect("native/src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut names: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(&src)
        .expect("native/src")
        .filter_map(|e| {
            let p = e.ok()?.path();
            if p.is_dir() && p.join("mod.rs").exists() {
                Some((p.file_name()?.to_str()?.to_owned(), p.join("mod.rs")))
            } else if p.extension()? == "rs" {
                Some((p.file_stem()?.to_str()?.to_owned(), p))
            } else {
                None
            }
        })
        .filter(|(n, _)| n != "main" && n != "sink")
        .collect();
    names.sort();
    let mut out = String::new();
    for (n, p) in names {
        writeln!(out, "#[path = {:?}]\n#[allow(dead_code, unused_imports)]\nmod {n};", p.display().to_string()).unwrap();
    }
    std::fs::write(Path::new(&std::env::var("OUT_DIR").unwrap()).join("native_mods.rs"), out).unwrap();
}
