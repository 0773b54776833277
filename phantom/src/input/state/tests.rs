//! Unit and property tests of sealed `requestState`.

use super::*;

fn binding(params: &RawValue, principal: Option<&str>) -> Binding {
    Binding::new("tools/call", principal, Some(params.into()))
}

fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).unwrap()
}

#[test]
fn round_trips_and_ignores_key_order_and_envelope() {
    let key = StateKey::random();
    let mut answers = Map::new();
    answers.insert("step1".into(), serde_json::json!({"action": "accept"}));
    let first = raw(r#"{"name":"t","arguments":{"a":1,"b":2},"_meta":{"x":1}}"#);
    let state = seal(
        &key,
        &binding(&first, None),
        answers.clone(),
        Duration::from_secs(60),
        4096,
    )
    .unwrap();
    let retry =
        raw(r#"{"arguments":{"b":2,"a":1},"name":"t","requestState":"..","inputResponses":{}}"#);
    assert_eq!(open(&key, &binding(&retry, None), &state).unwrap(), answers);
}

#[test]
fn refuses_other_requests_principals_keys_and_changes() {
    let key = StateKey::random();
    let params = raw(r#"{"name":"t","arguments":{}}"#);
    let state = seal(
        &key,
        &binding(&params, Some("alice")),
        Map::new(),
        Duration::from_secs(60),
        4096,
    )
    .unwrap();
    let other = raw(r#"{"name":"u","arguments":{}}"#);
    assert_eq!(
        open(&key, &binding(&other, Some("alice")), &state),
        Err(StateError::Tampered)
    );
    assert_eq!(
        open(&key, &binding(&params, Some("bob")), &state),
        Err(StateError::Tampered)
    );
    assert_eq!(
        open(&key, &binding(&params, None), &state),
        Err(StateError::Tampered)
    );
    assert_eq!(
        open(
            &StateKey::random(),
            &binding(&params, Some("alice")),
            &state
        ),
        Err(StateError::Tampered)
    );
    let mut bytes = state.into_bytes();
    let last = bytes.len() - 3;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(bytes).unwrap();
    assert_eq!(
        open(&key, &binding(&params, Some("alice")), &changed),
        Err(StateError::Tampered)
    );
    assert_eq!(
        open(&key, &binding(&params, Some("alice")), "not-a-state"),
        Err(StateError::Malformed)
    );
}

#[test]
fn refuses_expired_and_oversized_states() {
    let key = StateKey::random();
    let params = raw(r#"{"name":"t"}"#);
    let b = binding(&params, None);
    let plain = Plain {
        exp: now() - 1,
        answers: Map::new(),
    };
    // An expired state, sealed by hand with the same key and binding.
    let text = serde_json::to_vec(&plain).unwrap();
    let nonce = [7u8; NONCE_LEN];
    let ct = key
        .current
        .cipher
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: &text,
                aad: &b.aad,
            },
        )
        .unwrap();
    let state = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode([&key.current.id[..], &nonce[..], &ct].concat());
    assert_eq!(open(&key, &b, &state), Err(StateError::Expired));

    let mut big = Map::new();
    big.insert("k".into(), Value::String("x".repeat(5000)));
    assert!(matches!(
        seal(&key, &b, big, Duration::from_secs(60), 4096),
        Err(StateError::TooLarge(_, 4096))
    ));
}

#[test]
fn a_rotated_key_opens_states_of_the_old_one_during_its_grace_only() {
    let old = StateKey::from_bytes([1; 32]);
    let params = raw(r#"{"name":"t","arguments":{}}"#);
    let b = binding(&params, None);
    let sealed_old = seal(&old, &b, Map::new(), Duration::from_secs(60), 4096).unwrap();
    let new = StateKey::from_bytes([2; 32]);
    assert_eq!(open(&new, &b, &sealed_old), Err(StateError::Tampered));
    let rotated = new
        .clone()
        .rotated_from(old.clone(), Duration::from_secs(60));
    assert_eq!(rotated.id(), new.id());
    assert!(
        open(&rotated, &b, &sealed_old).is_ok(),
        "the old key's state opens in grace"
    );
    let sealed_new = seal(&rotated, &b, Map::new(), Duration::from_secs(60), 4096).unwrap();
    assert!(open(&new, &b, &sealed_new).is_ok(), "the new key seals");
    assert_eq!(
        open(&old, &b, &sealed_new),
        Err(StateError::Tampered),
        "a node left on the old key cannot open the new key's states"
    );
    let lapsed = new.rotated_from(old, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(
        open(&lapsed, &b, &sealed_old),
        Err(StateError::Tampered),
        "after the grace the old key opens nothing"
    );
}

#[test]
fn keys_from_base64() {
    let text = base64::engine::general_purpose::STANDARD.encode([9u8; 32]);
    assert!(StateKey::from_base64(&text).is_ok());
    assert_eq!(
        StateKey::from_base64("AAAA").unwrap_err(),
        StateKeyError::Length(3)
    );
    assert_eq!(
        StateKey::from_base64("!!").unwrap_err(),
        StateKeyError::NotBase64
    );
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    fn answers() -> impl Strategy<Value = Map<String, Value>> {
        prop::collection::btree_map("[a-z]{1,8}", "\\PC{0,20}", 0..5)
            .prop_map(|m| m.into_iter().map(|(k, v)| (k, Value::String(v))).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn a_sealed_state_opens_to_its_answers_and_any_changed_byte_is_refused(
            answers in answers(),
            principal in proptest::option::of("[a-z]{1,6}"),
            flip in any::<prop::sample::Index>(),
        ) {
            let key = StateKey::random();
            let params = raw(r#"{"name":"t","arguments":{"x":1}}"#);
            let binding = binding(&params, principal.as_deref());
            let state = seal(&key, &binding, answers.clone(), Duration::from_secs(60), 1 << 20)
                .expect("seals");
            prop_assert_eq!(open(&key, &binding, &state).expect("opens"), answers);
            let mut bytes = state.into_bytes();
            let i = flip.index(bytes.len());
            bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
            let changed = String::from_utf8(bytes).expect("base64 stays ASCII");
            prop_assert!(open(&key, &binding, &changed).is_err());
        }

        #[test]
        fn any_text_opens_to_an_error_never_a_panic(text in "\\PC{0,200}") {
            let key = StateKey::random();
            let params = raw("{}");
            prop_assert!(open(&key, &binding(&params, None), &text).is_err());
        }
    }
}

#[test]
fn hmac_sha256_is_rfc_4231s() {
    // RFC 4231, test case 2.
    let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
    let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        hex,
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
}

#[test]
fn a_keyring_tags_each_key_that_opens_states_and_never_shows_a_key() {
    let old = StateKey::from_bytes([1; 32]);
    let new = StateKey::from_bytes([2; 32]);
    let (old_tag, new_tag) = (old.tags()[0].clone(), new.tags()[0].clone());
    assert_eq!(old.tags(), vec![old_tag.clone()]);
    assert_eq!(old_tag.len(), 64);
    assert_ne!(old_tag, new_tag);
    // The same key gives the same tag on every node.
    assert_eq!(StateKey::from_bytes([1; 32]).tags(), vec![old_tag.clone()]);
    let rotated = new
        .clone()
        .rotated_from(old.clone(), Duration::from_secs(60));
    assert_eq!(rotated.tags(), vec![new_tag.clone(), old_tag]);
    // Past its grace the old key is no longer published.
    let lapsed = new.rotated_from(old, Duration::ZERO);
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(lapsed.tags(), vec![new_tag]);
    // Neither the key nor its plain SHA-256 is the tag.
    let plain: String = {
        use sha2::Digest as _;
        sha2::Sha256::digest([1u8; 32])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    assert!(!StateKey::from_bytes([1; 32]).tags().contains(&plain));
}
