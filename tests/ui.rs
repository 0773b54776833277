//! Compile-fail and compile-pass cases of the attribute macros: `tests/ui/<attr>/{fail,pass}/*.rs`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui/*/pass/*.rs");
    t.compile_fail("ui/*/fail/*.rs");
}
