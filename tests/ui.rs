//! Compile-fail and compile-pass cases of the attribute macros: `tests/ui/<attr>/{fail,pass}/*.rs`,
//! and the inputs of the expansion snapshots (`phantom-macros/tests/expand/<case>.rs`), so every
//! snapshot shows code that compiles.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/*/pass/*.rs");
    t.compile_fail("ui/*/fail/*.rs");
    let expand = std::path::Path::new("../phantom-macros/tests/expand");
    let mut inputs: Vec<_> = std::fs::read_dir(expand)
        .expect("the snapshot inputs")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .filter(|p| !p.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    inputs.sort();
    for input in inputs {
        t.pass(input);
    }
}
