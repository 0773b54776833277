//! The authorization server's seams: [`ClientStore`] (registered clients), [`GrantStore`]
//! (pending authorizations and codes, each taken once), [`RefreshStore`] (refresh-token
//! families, rotated with reuse detection) and [`ConsentStore`] (consents remembered).
//!
//! Every value is the text of a record the authorization server writes and reads (a store never
//! looks inside), every key expires, and every in-memory table is bounded, so that each step of
//! a sign-in (the authorization request, the upstream's callback, the consent, the token
//! request) may land on another node.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::StoreError;
use crate::kernel::{BoxFuture, Locked as _};

/// Entries an in-memory table of this module holds at most; past it, a write that would add one
/// is refused (after the expired ones are swept) rather than growing without bound.
const ENTRIES: usize = 100_000;

/// Refresh tokens of a family remembered as used, so that presenting one again is seen as reuse;
/// an older one is only unknown.
pub const USED_TOKENS: usize = 32;

/// A table whose every entry expires.
#[derive(Debug)]
struct Expiring<V> {
    entries: Mutex<HashMap<String, (V, Instant)>>,
}

impl<V> Default for Expiring<V> {
    fn default() -> Self {
        Self {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<V> Expiring<V> {
    /// Runs `f` on the entries (an expired one may still be there: `f` checks), after making
    /// room for one more: `Err` when the table is full of live entries.
    fn with<R>(
        &self,
        f: impl FnOnce(&mut HashMap<String, (V, Instant)>, Instant) -> R,
    ) -> Result<R, StoreError> {
        let now = Instant::now();
        let mut entries = self.entries.locked();
        if entries.len() >= ENTRIES {
            entries.retain(|_, (_, until)| *until > now);
            if entries.len() >= ENTRIES {
                return Err(StoreError::other(format!(
                    "the in-memory table is full ({ENTRIES} live entries)"
                )));
            }
        }
        Ok(f(&mut entries, now))
    }
}

fn ready<T: Send + 'static>(value: T) -> BoxFuture<'static, T> {
    Box::pin(std::future::ready(value))
}

/// Where the clients that registered with the authorization server (RFC 7591) are kept: the
/// text of each registration by client id. A registration not used for its idle time lapses,
/// so abandoned ones do not pile up.
pub trait ClientStore: Send + Sync + 'static {
    /// Registers `id` with `record`, to lapse after `idle` unless read. A
    /// [`Conflict`](super::StoreErrorKind::Conflict) error when `id` is registered already.
    fn register<'a>(
        &'a self,
        id: &'a str,
        record: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The registration of `id`, its idle time restarted at `idle`; `None` when there is none
    /// (or it lapsed).
    fn client<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>>;

    /// Removes the registration of `id` (nothing when there is none).
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// Where records used once are kept until they are: a pending authorization (by the `state`
/// sent to the upstream provider, from the authorization request to the upstream's callback;
/// then by the consent form's token, until the user answers) and an authorization code (by its
/// digest, until the token request). Taking is atomic: of any number of concurrent takes
/// through any handle, one gets the record, so a code is redeemed once.
pub trait GrantStore: Send + Sync + 'static {
    /// Keeps `record` under `key` for `ttl`. A [`Conflict`](super::StoreErrorKind::Conflict)
    /// error when `key` holds a record already.
    fn put<'a>(
        &'a self,
        key: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Takes the record under `key`, which is gone from then on; `None` when there is none (never
    /// put, taken already, or expired).
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
}

/// What [`RefreshStore::rotate`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rotated {
    /// The token was the family's current one: it is replaced by the next, and this is the
    /// family's record.
    Current(String),
    /// The token was one the family had before: it was presented again, so the family is
    /// revoked (every token of it, the current one too).
    Reused,
    /// No live family has this token (an unknown or revoked family, an expired one, a token
    /// older than the last [`USED_TOKENS`] of its family).
    Unknown,
}

/// Where refresh-token families are kept: a family is the chain of refresh tokens issued from
/// one authorization, each replacing the one before (rotation). It holds the record of the
/// grant (who, which client, scopes, resource), the digest of its current token and the digests
/// of the last [`USED_TOKENS`] it replaced, and lives until its absolute lifetime ends.
pub trait RefreshStore: Send + Sync + 'static {
    /// Starts family `family` with `record`, its current token `token` (a digest), living `ttl`.
    /// A [`Conflict`](super::StoreErrorKind::Conflict) error when the family exists.
    fn start<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Rotates the family's token `token` to `next` (see [`Rotated`]). Atomic: of two concurrent
    /// rotations of one token, one gets [`Rotated::Current`] and the other [`Rotated::Reused`].
    fn rotate<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        next: &'a str,
    ) -> BoxFuture<'a, Result<Rotated, StoreError>>;

    /// Revokes the family (RFC 7009: revoking a refresh token revokes its grant); nothing when
    /// there is none.
    fn revoke<'a>(&'a self, family: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// Where the consents users gave are remembered, each by a key the authorization server makes
/// of (user, client, scopes, resource): a consent for other scopes or another resource is
/// another key, so a new scope asks again.
pub trait ConsentStore: Send + Sync + 'static {
    /// Remembers the consent `key` for `ttl`.
    fn remember<'a>(&'a self, key: &'a str, ttl: Duration)
    -> BoxFuture<'a, Result<(), StoreError>>;

    /// Whether the consent `key` is remembered (and has not lapsed).
    fn remembered<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Forgets the consent `key` (nothing when there is none).
    fn forget<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// The in-memory [`ClientStore`] (one process; at most 100 000 registrations live).
#[derive(Debug, Default)]
pub struct MemoryClientStore {
    clients: Expiring<String>,
}

impl MemoryClientStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many registrations the store holds (lapsed ones included until they are swept).
    pub fn clients_len(&self) -> usize {
        self.clients.entries.locked().len()
    }
}

impl ClientStore for MemoryClientStore {
    fn register<'a>(
        &'a self,
        id: &'a str,
        record: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(
            self.clients
                .with(|clients, now| {
                    if clients.get(id).is_some_and(|(_, until)| *until > now) {
                        return Err(StoreError::conflict(format!(
                            "client `{id}` is registered already"
                        )));
                    }
                    clients.insert(id.to_owned(), (record.to_owned(), now + idle));
                    Ok(())
                })
                .and_then(|r| r),
        )
    }

    fn client<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        ready(self.clients.with(|clients, now| {
            clients
                .get_mut(id)
                .filter(|(_, until)| *until > now)
                .map(|(record, until)| {
                    *until = now + idle;
                    record.clone()
                })
        }))
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.clients.entries.locked().remove(id);
        ready(Ok(()))
    }
}

/// The in-memory [`GrantStore`] (one process; at most 100 000 records live).
#[derive(Debug, Default)]
pub struct MemoryGrantStore {
    records: Expiring<String>,
}

impl MemoryGrantStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl GrantStore for MemoryGrantStore {
    fn put<'a>(
        &'a self,
        key: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(
            self.records
                .with(|records, now| {
                    if records.get(key).is_some_and(|(_, until)| *until > now) {
                        return Err(StoreError::conflict("the key holds a record already"));
                    }
                    records.insert(key.to_owned(), (record.to_owned(), now + ttl));
                    Ok(())
                })
                .and_then(|r| r),
        )
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        let now = Instant::now();
        let taken = self.records.entries.locked().remove(key);
        ready(Ok(taken
            .filter(|(_, until)| *until > now)
            .map(|(record, _)| record)))
    }
}

/// One refresh-token family in memory.
#[derive(Debug)]
struct Family {
    record: String,
    current: String,
    used: Vec<String>,
}

/// The in-memory [`RefreshStore`] (one process; at most 100 000 families live).
#[derive(Debug, Default)]
pub struct MemoryRefreshStore {
    families: Expiring<Family>,
}

impl MemoryRefreshStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl RefreshStore for MemoryRefreshStore {
    fn start<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(
            self.families
                .with(|families, now| {
                    if families.get(family).is_some_and(|(_, until)| *until > now) {
                        return Err(StoreError::conflict("the refresh-token family exists"));
                    }
                    let started = Family {
                        record: record.to_owned(),
                        current: token.to_owned(),
                        used: Vec::new(),
                    };
                    families.insert(family.to_owned(), (started, now + ttl));
                    Ok(())
                })
                .and_then(|r| r),
        )
    }

    fn rotate<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        next: &'a str,
    ) -> BoxFuture<'a, Result<Rotated, StoreError>> {
        let now = Instant::now();
        let mut families = self.families.entries.locked();
        let rotated = match families.get_mut(family) {
            Some((live, until)) if *until > now => {
                if live.current == token {
                    let old = std::mem::replace(&mut live.current, next.to_owned());
                    if live.used.len() >= USED_TOKENS {
                        live.used.remove(0);
                    }
                    live.used.push(old);
                    Rotated::Current(live.record.clone())
                } else if live.used.iter().any(|used| used == token) {
                    families.remove(family);
                    Rotated::Reused
                } else {
                    Rotated::Unknown
                }
            }
            _ => Rotated::Unknown,
        };
        ready(Ok(rotated))
    }

    fn revoke<'a>(&'a self, family: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.families.entries.locked().remove(family);
        ready(Ok(()))
    }
}

/// The in-memory [`ConsentStore`] (one process; at most 100 000 consents live).
#[derive(Debug, Default)]
pub struct MemoryConsentStore {
    consents: Expiring<()>,
}

impl MemoryConsentStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ConsentStore for MemoryConsentStore {
    fn remember<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        ready(self.consents.with(|consents, now| {
            consents.insert(key.to_owned(), ((), now + ttl));
        }))
    }

    fn remembered<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = Instant::now();
        let live = self
            .consents
            .entries
            .locked()
            .get(key)
            .is_some_and(|(_, until)| *until > now);
        ready(Ok(live))
    }

    fn forget<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        self.consents.entries.locked().remove(key);
        ready(Ok(()))
    }
}

impl<T: ClientStore + ?Sized> ClientStore for Arc<T> {
    fn register<'a>(
        &'a self,
        id: &'a str,
        record: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).register(id, record, idle)
    }

    fn client<'a>(
        &'a self,
        id: &'a str,
        idle: Duration,
    ) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).client(id, idle)
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).remove(id)
    }
}

impl<T: GrantStore + ?Sized> GrantStore for Arc<T> {
    fn put<'a>(
        &'a self,
        key: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).put(key, record, ttl)
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).take(key)
    }
}

impl<T: RefreshStore + ?Sized> RefreshStore for Arc<T> {
    fn start<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        record: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).start(family, token, record, ttl)
    }

    fn rotate<'a>(
        &'a self,
        family: &'a str,
        token: &'a str,
        next: &'a str,
    ) -> BoxFuture<'a, Result<Rotated, StoreError>> {
        (**self).rotate(family, token, next)
    }

    fn revoke<'a>(&'a self, family: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).revoke(family)
    }
}

impl<T: ConsentStore + ?Sized> ConsentStore for Arc<T> {
    fn remember<'a>(
        &'a self,
        key: &'a str,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).remember(key, ttl)
    }

    fn remembered<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).remembered(key)
    }

    fn forget<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).forget(key)
    }
}

/// Each seam's trait object shows its name.
macro_rules! named {
    ($($seam:ident),*) => {$(
        impl std::fmt::Debug for dyn $seam {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($seam))
            }
        }
    )*};
}

named!(ClientStore, GrantStore, RefreshStore, ConsentStore);
