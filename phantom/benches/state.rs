//! One 2026-07-28 input round's `requestState`, as a retry of a multi-round request handles it:
//! the request's binding (computed once), its state opened, and the answers so far sealed for the
//! next round (the handler excluded). Target: under 5 µs per round.

#![allow(missing_docs)] // criterion_group! generates undocumented items

use criterion::{Criterion, criterion_group, criterion_main};
use phantom::__private::{seal_state, state_round};
use phantom::input::StateKey;
use serde_json::value::RawValue;
use serde_json::{Map, json};

fn bench(c: &mut Criterion) {
    let key = StateKey::random();
    let first: Box<RawValue> = serde_json::from_str(
        r#"{"name":"test_input_required_result_multi_round","arguments":{"study":12,"tags":["a","b"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}"#,
    )
    .expect("params");
    let retry: Box<RawValue> = serde_json::from_str(
        r#"{"name":"test_input_required_result_multi_round","arguments":{"study":12,"tags":["a","b"]},"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"…","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}"#,
    )
    .expect("params");
    let mut answers = Map::new();
    answers.insert(
        "step1".into(),
        json!({"action": "accept", "content": {"name": "Alice"}}),
    );
    let state = seal_state(&key, Some("alice"), &first, answers);
    let mut step2 = Map::new();
    step2.insert(
        "step2".into(),
        json!({"action": "accept", "content": {"color": "blue"}}),
    );
    assert!(state_round(&key, Some("alice"), &retry, &state, step2.clone()).is_some());
    assert!(
        state_round(&key, Some("bob"), &retry, &state, step2.clone()).is_none(),
        "another principal's retry does not open"
    );
    c.bench_function("requestState round (open + seal)", |b| {
        b.iter(|| {
            state_round(
                &key,
                Some("alice"),
                &retry,
                std::hint::black_box(&state),
                step2.clone(),
            )
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
