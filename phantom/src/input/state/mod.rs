//! The sealed `requestState` of a 2026-07-28 input round: the answers a handler has had so far,
//! sealed with AES-256-GCM so that a client can carry them but neither read nor change them.
//!
//! The associated data binds a state to the request it was made for: the method, the principal
//! `connect` established, and the request's params without `inputResponses`, `requestState` and
//! `_meta` (in a canonical form: keys sorted, no spaces). A state replayed for another request, by
//! another principal, or changed in any byte fails to open; so does one past its expiry.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::protocol::Params;

const NONCE_LEN: usize = 12;
/// A sealed state starts with the id of the key that sealed it.
const KEY_ID_LEN: usize = 4;
const CONTEXT: &[u8] = b"phantom/requestState/1";
/// What a key's tag is the HMAC of ([`StateKey::tags`]).
const TAG_LABEL: &[u8] = b"phantom/requestState/key-check/1";

/// The keys that seal `requestState` (2026-07-28 input rounds): the current one, which seals, and
/// the keys it was rotated from, which still open states for a grace period.
///
/// By default each process draws a random key, so a state opens only on the node that sealed it;
/// nodes behind one load balancer share one with [`Config::state_key`](crate::Config::state_key),
/// e.g. from `StateKey::from_base64(&std::env::var("PHANTOM_STATE_KEY")?)`. To rotate, give every
/// node the new key with the old one behind it, `new.rotated_from(old, grace)`: states sealed
/// with the old key keep opening until the grace period ends (make it at least `state_ttl`),
/// whichever node sealed them. Every key has an id (the first bytes of its SHA-256), written at
/// the head of each state it seals.
#[derive(Clone)]
pub struct StateKey {
    current: Arc<Key>,
    previous: Vec<(Arc<Key>, SystemTime)>,
}

struct Key {
    id: [u8; KEY_ID_LEN],
    /// HMAC-SHA256 of [`TAG_LABEL`] under the key: what nodes publish to compare keyrings.
    tag: [u8; 32],
    cipher: Aes256Gcm,
}

impl StateKey {
    /// A random key (from the operating system's generator).
    pub fn random() -> Self {
        Self::from_bytes(crate::kernel::random_bytes())
    }

    /// A key from 32 bytes.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(bytes);
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&digest[..KEY_ID_LEN]);
        Self {
            // The key schedule is computed once here, not per seal.
            current: Arc::new(Key {
                id,
                tag: hmac_sha256(&bytes, TAG_LABEL),
                cipher: Aes256Gcm::new(&bytes.into()),
            }),
            previous: Vec::new(),
        }
    }

    /// This key, sealing from now on, with `previous` (and the keys it still accepts) accepted
    /// for `grace` from now to open states sealed before the rotation.
    #[must_use]
    pub fn rotated_from(mut self, previous: StateKey, grace: Duration) -> Self {
        let until = SystemTime::now() + grace;
        self.previous.push((previous.current, until));
        self.previous.extend(previous.previous);
        self.previous.retain(|(k, _)| k.id != self.current.id);
        self
    }

    /// The id of the key that seals, in hex (for logs: it says which key a node uses, not the
    /// key).
    pub fn id(&self) -> String {
        self.current.id.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The tag of each key that opens states now (the current one first), in hex: an HMAC of a
    /// fixed label under the key, which names the key to the other nodes sharing a backend
    /// without revealing it ([`KeyringStore`](crate::store::KeyringStore)).
    pub(crate) fn tags(&self) -> Vec<String> {
        let now = SystemTime::now();
        std::iter::once(&self.current)
            .chain(
                self.previous
                    .iter()
                    .filter(|(_, until)| now <= *until)
                    .map(|(k, _)| k),
            )
            .map(|k| k.tag.iter().map(|b| format!("{b:02x}")).collect())
            .collect()
    }

    /// The key with this id, if it still opens states now.
    fn opening(&self, id: &[u8]) -> Option<&Aes256Gcm> {
        if self.current.id == id {
            return Some(&self.current.cipher);
        }
        let now = SystemTime::now();
        self.previous
            .iter()
            .find(|(k, until)| k.id == id && now <= *until)
            .map(|(k, _)| &k.cipher)
    }

    /// A key from 32 bytes in base64 (standard or URL-safe alphabet, padded or not), as a
    /// deployment keeps it in its environment.
    pub fn from_base64(text: &str) -> Result<Self, StateKeyError> {
        let text = text.trim().trim_end_matches('=');
        let bytes = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(text)
            .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(text))
            .map_err(|_| StateKeyError::NotBase64)?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|b: Vec<u8>| StateKeyError::Length(b.len()))?;
        Ok(Self::from_bytes(bytes))
    }
}

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateKey")
            .field("id", &self.id())
            .field("previous", &self.previous.len())
            .finish_non_exhaustive()
    }
}

/// HMAC-SHA256 (RFC 2104) of `message` under `key` (at most one block, 64 bytes, long).
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use sha2::Digest as _;
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let mut inner = sha2::Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    inner.update(message);
    let inner = inner.finalize();
    let mut outer = sha2::Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(&inner[..]);
    let mut mac = [0u8; 32];
    mac.copy_from_slice(&outer.finalize()[..]);
    mac
}

/// Why [`StateKey::from_base64`] refused a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateKeyError {
    /// The text is not base64.
    #[error("a state key must be 32 bytes in base64; this is not base64")]
    NotBase64,
    /// The key has the wrong length.
    #[error("a state key must be 32 bytes in base64; this decodes to {0} bytes")]
    Length(usize),
}

/// What a state is bound to: the associated data of its seal, computed once per request.
#[derive(Debug)]
pub(crate) struct Binding {
    aad: Vec<u8>,
}

impl Binding {
    /// The binding of a request: its method, its session's principal and its params.
    pub(crate) fn of(
        method: crate::protocol::Method,
        session: &crate::session::Session,
        params: Option<Params<'_>>,
    ) -> Self {
        Self::new(method.as_str(), session.principal.as_deref(), params)
    }

    /// The binding of a request by its parts.
    pub(crate) fn new(method: &str, principal: Option<&str>, params: Option<Params<'_>>) -> Self {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(CONTEXT);
        out.push(0);
        out.extend_from_slice(method.as_bytes());
        out.push(0);
        match principal {
            None => out.push(b'-'),
            Some(p) => {
                out.push(b'+');
                out.extend_from_slice(p.as_bytes());
            }
        }
        out.push(0);
        // The top level is read raw and sorted, so that `_meta` and the answers (the larger
        // members) are skipped without being decoded; the rest is written canonically.
        let members: BTreeMap<Cow<'_, str>, &RawValue> = params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default();
        out.push(b'{');
        let kept = members
            .iter()
            .filter(|(k, _)| !matches!(k.as_ref(), "inputResponses" | "requestState" | "_meta"));
        for (i, (key, raw)) in kept.enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let _ = serde_json::to_writer(&mut out, key);
            out.push(b':');
            let value: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
            canonical(&value, &mut out);
        }
        out.push(b'}');
        Self { aad: out }
    }
}

/// JSON with object keys sorted at every depth, whatever order the client sent them in.
fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                let _ = serde_json::to_writer(&mut *out, key);
                out.push(b':');
                canonical(item, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        leaf => {
            let _ = serde_json::to_writer(&mut *out, leaf);
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Plain {
    /// Expiry, in seconds since the Unix epoch.
    exp: u64,
    /// The answers so far, by key.
    answers: Map<String, Value>,
}

/// Why a state could not be sealed or opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StateError {
    #[error("`requestState` is not a state this server issued")]
    Malformed,
    #[error(
        "`requestState` failed its integrity check: it was changed, or it belongs to another request or principal"
    )]
    Tampered,
    #[error("`requestState` has expired; send the request again without it")]
    Expired,
    #[error(
        "the answers carried in `requestState` would take {0} bytes, over the limit of {1}; ask for less input in one request"
    )]
    TooLarge(usize, usize),
}

/// A fresh nonce: a random 96-bit value drawn once per process, then counted up. Nonces never
/// repeat within a process, and two processes sharing a key would need to draw starting points
/// within 2^64 seals of each other (probability about 2^-32 per pair at most).
fn next_nonce() -> [u8; NONCE_LEN] {
    static START: OnceLock<(u32, u64)> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (high, low) = *START.get_or_init(|| {
        let bytes = crate::kernel::random_bytes::<NONCE_LEN>();
        let (h, l) = bytes.split_at(4);
        (
            u32::from_le_bytes(h.try_into().expect("4 bytes")),
            u64::from_le_bytes(l.try_into().expect("8 bytes")),
        )
    });
    let n = low.wrapping_add(COUNTER.fetch_add(1, Ordering::Relaxed));
    let mut nonce = [0u8; NONCE_LEN];
    nonce[..4].copy_from_slice(&high.to_le_bytes());
    nonce[4..].copy_from_slice(&n.to_le_bytes());
    nonce
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Seals `answers` for the request `binding` names, valid for `ttl`, at most `cap` bytes.
pub(crate) fn seal(
    key: &StateKey,
    binding: &Binding,
    answers: Map<String, Value>,
    ttl: Duration,
    cap: usize,
) -> Result<String, StateError> {
    let plain = Plain {
        exp: now().saturating_add(ttl.as_secs().max(1)),
        answers,
    };
    let text = serde_json::to_vec(&plain).map_err(|_| StateError::Malformed)?;
    // base64 of key id + nonce + ciphertext + tag.
    let sealed_len = (KEY_ID_LEN + NONCE_LEN + text.len() + 16).div_ceil(3) * 4;
    if sealed_len > cap {
        return Err(StateError::TooLarge(sealed_len, cap));
    }
    let nonce = next_nonce();
    let ct = key
        .current
        .cipher
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: &text,
                aad: &binding.aad,
            },
        )
        .map_err(|_| StateError::Malformed)?;
    let mut out = Vec::with_capacity(KEY_ID_LEN + NONCE_LEN + ct.len());
    out.extend_from_slice(&key.current.id);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(&ct);
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(out))
}

/// Opens a state sealed for the request `binding` names: the answers it carries.
pub(crate) fn open(
    key: &StateKey,
    binding: &Binding,
    state: &str,
) -> Result<Map<String, Value>, StateError> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(state)
        .map_err(|_| StateError::Malformed)?;
    if bytes.len() < KEY_ID_LEN + NONCE_LEN + 16 {
        return Err(StateError::Malformed);
    }
    let (id, rest) = bytes.split_at(KEY_ID_LEN);
    let (nonce, ct) = rest.split_at(NONCE_LEN);
    // An unknown key (another deployment's, or one past its grace) is as good as a changed byte.
    let cipher = key.opening(id).ok_or(StateError::Tampered)?;
    let text = cipher
        .decrypt(
            Nonce::from_slice(nonce),
            Payload {
                msg: ct,
                aad: &binding.aad,
            },
        )
        .map_err(|_| StateError::Tampered)?;
    let plain: Plain = serde_json::from_slice(&text).map_err(|_| StateError::Malformed)?;
    if plain.exp < now() {
        return Err(StateError::Expired);
    }
    Ok(plain.answers)
}

#[cfg(test)]
mod tests;
