//! The one source of random ids: session ids, task ids, reply-routing prefixes, sealing keys and
//! nonces all come from the operating system's generator through here.

use base64::Engine as _;

/// `N` bytes from the operating system's random generator.
///
/// # Panics
///
/// When the operating system has no random source to read (no id could be safe then).
pub(crate) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random generator failed");
    bytes
}

/// `N` random bytes as URL-safe base64 without padding (visible ASCII, `4 N / 3` characters).
pub(crate) fn random_id<const N: usize>() -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(random_bytes::<N>())
}
