//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`, grown by `cargo fuzz run`) through
//! the same target bodies the fuzzer runs, on stable and without libFuzzer: an input that once
//! crashed a target, or any input the fuzzer kept for its coverage, is run on every test.

use std::path::Path;

use phantom_tests::fuzzing::TARGETS;

#[test]
fn every_committed_corpus_input_runs_clean() {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut counts = Vec::new();
    for (name, target) in TARGETS {
        let dir = corpora.join(name);
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a corpus entry").path();
            let data = std::fs::read(&path).expect("a corpus file");
            let run = std::panic::catch_unwind(|| target(&data));
            assert!(run.is_ok(), "{name}: {} fails", path.display());
            n += 1;
        }
        assert!(n > 0, "{name}: the corpus is empty");
        counts.push(format!("{name} {n}"));
    }
    eprintln!("replayed: {}", counts.join(", "));
}
