//! The documents fetched, kept in memory for as long as their HTTP caching headers allow, within
//! a floor and a ceiling, and at most so many of them.

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use http::{HeaderMap, header};

use super::super::register::Registered;

/// How long a document may be kept, from its answer's headers (RFC 9111 §4.2.1): `None` when it
/// must not be (`no-store`, `no-cache`, `max-age=0`, an `Expires` in the past or unreadable);
/// `max-age` before `Expires` (measured from the answer's `Date`, or from `now`); `min` when the
/// answer says nothing. Within `min..=max`.
pub(crate) fn lifetime(
    headers: &HeaderMap,
    now: SystemTime,
    min: Duration,
    max: Duration,
) -> Option<Duration> {
    let mut max_age = None;
    for value in headers.get_all(header::CACHE_CONTROL) {
        let Ok(value) = value.to_str() else {
            return None;
        };
        for directive in value.split(',') {
            let directive = directive.trim();
            let (name, argument) = directive
                .split_once('=')
                .map_or((directive, None), |(n, a)| (n.trim(), Some(a.trim())));
            match name.to_ascii_lowercase().as_str() {
                "no-store" | "no-cache" => return None,
                "max-age" => {
                    let seconds = argument?.trim_matches('"').parse::<u64>().ok()?;
                    max_age = Some(Duration::from_secs(seconds));
                }
                _ => {}
            }
        }
    }
    let fresh = match (max_age, headers.get(header::EXPIRES)) {
        (Some(age), _) => age,
        (None, Some(expires)) => {
            let date =
                |value: &http::HeaderValue| httpdate::parse_http_date(value.to_str().ok()?).ok();
            let expires = date(expires)?;
            let from = headers.get(header::DATE).and_then(date).unwrap_or(now);
            expires.duration_since(from).ok()?
        }
        (None, None) => min,
    };
    (!fresh.is_zero()).then(|| fresh.clamp(min, max))
}

/// The documents kept, by `client_id`.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    entries: HashMap<String, (Registered, Instant)>,
}

impl Cache {
    /// The client `client_id` when its document is still fresh at `now`.
    pub(crate) fn get(&mut self, client_id: &str, now: Instant) -> Option<Registered> {
        match self.entries.get(client_id) {
            Some((client, until)) if *until > now => Some(client.clone()),
            Some(_) => {
                self.entries.remove(client_id);
                None
            }
            None => None,
        }
    }

    /// Keeps `client` until `until`; when `capacity` documents are kept, the stale ones go, then
    /// the one that would go soonest.
    pub(crate) fn put(
        &mut self,
        client_id: &str,
        client: Registered,
        until: Instant,
        now: Instant,
        capacity: usize,
    ) {
        if capacity == 0 {
            return;
        }
        if !self.entries.contains_key(client_id) && self.entries.len() >= capacity {
            self.entries.retain(|_, (_, kept)| *kept > now);
            while self.entries.len() >= capacity {
                let Some(soonest) = self
                    .entries
                    .iter()
                    .min_by_key(|(_, (_, kept))| *kept)
                    .map(|(id, _)| id.clone())
                else {
                    break;
                };
                self.entries.remove(&soonest);
            }
        }
        self.entries.insert(client_id.to_owned(), (client, until));
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::register::AuthMethod;
    use super::*;

    const MIN: Duration = Duration::from_secs(60);
    const MAX: Duration = Duration::from_secs(86_400);

    type Pairs<'a> = &'a [(header::HeaderName, &'a str)];

    fn headers(pairs: Pairs<'_>) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), value.parse().unwrap());
        }
        map
    }

    #[test]
    fn the_lifetime_follows_the_caching_headers_within_the_floor_and_ceiling() {
        let now = httpdate::parse_http_date("Sun, 06 Dec 2026 12:00:00 GMT").unwrap();
        let secs = Duration::from_secs;
        let cases: &[(Pairs<'_>, Option<Duration>)] = &[
            (&[], Some(MIN)),
            (&[(header::CACHE_CONTROL, "max-age=600")], Some(secs(600))),
            (
                &[(header::CACHE_CONTROL, "public, MAX-AGE=\"900\"")],
                Some(secs(900)),
            ),
            (&[(header::CACHE_CONTROL, "max-age=5")], Some(MIN)),
            (&[(header::CACHE_CONTROL, "max-age=9999999")], Some(MAX)),
            (&[(header::CACHE_CONTROL, "max-age=0")], None),
            (&[(header::CACHE_CONTROL, "no-store")], None),
            (&[(header::CACHE_CONTROL, "max-age=600, no-cache")], None),
            (&[(header::CACHE_CONTROL, "max-age=soon")], None),
            (
                &[(header::EXPIRES, "Sun, 06 Dec 2026 13:00:00 GMT")],
                Some(secs(3600)),
            ),
            (
                &[
                    (header::EXPIRES, "Sun, 06 Dec 2026 13:00:00 GMT"),
                    (header::DATE, "Sun, 06 Dec 2026 12:30:00 GMT"),
                ],
                Some(secs(1800)),
            ),
            (
                &[
                    (header::EXPIRES, "Sun, 06 Dec 2026 13:00:00 GMT"),
                    (header::CACHE_CONTROL, "max-age=120"),
                ],
                Some(secs(120)),
            ),
            (&[(header::EXPIRES, "Sun, 06 Dec 2026 11:00:00 GMT")], None),
            (&[(header::EXPIRES, "0")], None),
        ];
        for (pairs, expected) in cases {
            assert_eq!(
                lifetime(&headers(pairs), now, MIN, MAX),
                *expected,
                "{pairs:?}"
            );
        }
    }

    fn client(name: &str) -> Registered {
        Registered {
            redirect_uris: vec!["https://app.example/cb".into()],
            auth_method: AuthMethod::None,
            secret_digest: None,
            client_name: Some(name.into()),
            scope: None,
        }
    }

    #[test]
    fn the_cache_is_bounded_and_forgets_stale_documents() {
        let now = Instant::now();
        let at = |s: u64| now + Duration::from_secs(s);
        let mut cache = Cache::default();
        cache.put("a", client("a"), at(10), now, 2);
        cache.put("b", client("b"), at(30), now, 2);
        cache.put("c", client("c"), at(20), now, 2);
        assert_eq!(cache.len(), 2);
        assert!(cache.get("a", now).is_none(), "the soonest to go went");
        assert!(cache.get("b", now).is_some() && cache.get("c", now).is_some());
        assert!(cache.get("c", at(21)).is_none(), "stale");
        assert_eq!(cache.len(), 1);
        cache.put("d", client("d"), at(5), now, 0);
        assert!(
            cache.get("d", now).is_none(),
            "a cache of no entries keeps none"
        );
    }
}
