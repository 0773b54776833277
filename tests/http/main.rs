//! Streamable HTTP end to end: each test starts `phantom::http::serve_listener` on `127.0.0.1:0`
//! and speaks real HTTP/1.1 to it, asserting status codes, headers and decoded JSON-RPC bodies.
//!
//! - `bad_input`: the bad-input matrix (60+ malformed, misdirected and oversized requests, each
//!   with its exact status and JSON-RPC code, the server still healthy after each);
//! - `limits`: limits a client can see over raw TCP (413 after a drained body, 408, the header
//!   timeout against slowloris, the caps on sessions, requests in flight and streams);
//! - `legacy`: 2025-11-25 sessions over JSON (200, 202, 400, 404, 503, DELETE, idle eviction);
//! - `sse`: SSE responses, priming, GET streams, keep-alive, 409, `Last-Event-ID` resumption;
//! - `modern`: 2026-07-28 envelopes and standard headers (-32602, -32022, -32020, 404/-32601);
//! - `param_headers`: `Mcp-Param-*` headers checked against `#[arg(header)]` arguments (-32020), and
//!   `#[tool(requires)]`'s -32021 as a 400;
//! - `bearer`: the `notes` example's OAuth resource server with real signed JWTs (401 for missing,
//!   expired, foreign-audience, foreign-issuer and forged tokens; 403 `insufficient_scope` from a
//!   tool's scopes and from a handler; a legacy session bound to its subject; step-up);
//! - `jwks`: `JwtVerifier::discover` against a small authorization server: RFC 8414 and OpenID
//!   metadata (path-inserted and appended), the issuer checked, a rotated key fetched once, the
//!   refetch rate-limited and shared, the keys kept when the issuer is gone, and a phantom server
//!   answering 200 and 401 with it;
//! - `authz`: phantom's authorization server: its metadata and JWKS served and followed by
//!   `JwtVerifier::discover`, its tokens calling a scoped tool and refused for another
//!   resource, registration answered 201 or with the RFC's error;
//! - `signin`: its sign-in flow with the test as the browser (`browser`): `/authorize`, the
//!   upstream provider, the consent page, `/token`, a scoped tool, refresh and revocation, two
//!   nodes sharing stores, and the bad-input matrix of every step;
//! - `idp`: a scripted OpenID Connect identity provider (discovery, an authorization endpoint
//!   that signs its user in at once, a token endpoint checking PKCE and the client's credentials,
//!   ES256 ID tokens), with knobs to make it refuse, lie or fail; `upstream`: its own checks;
//! - `roles`: the `roles` example's opaque bearer tokens (`StaticTokens`) and per-tool scopes:
//!   401 without a known token, a reader refused `403 insufficient_scope` on the admin's tool;
//! - `cancel_and_auth`: a dropped 2026-07-28 response cancels its handler; protected-resource
//!   metadata; the `Bearer` extractor;
//! - `shape`: `connect` on every POST, the session id at `initialize`, stored session changes,
//!   legacy stateless mode;
//! - `subscriptions`: `resources/subscribe` and updates on the GET stream, the bulk notifier,
//!   revocation, list changes, and 2026-07-28 `subscriptions/listen`;
//! - `telemetry`: the dispatch span (trace context from `_meta`, method, session, outcome) and
//!   the connect, disconnect, terminate and exception events;
//! - `drain`: `/healthz` and `/readyz`, readiness `503` before the listener closes, streams ended
//!   with a `retry:` hint, and `SIGTERM` to a server process finishing its request in flight;
//! - `transport`: 403 (Host, Origin), 405, 406, 413, 415, CORS, and `connect` (401, 403).

mod authz;
mod bad_input;
mod bearer;
mod browser;
mod callbacks;
mod cancel_and_auth;
mod drain;
mod escaped;
mod idp;
mod interactive;
mod jwks;
mod legacy;
mod limits;
mod modern;
mod param_headers;
mod registry;
mod roles;
mod scoped;
mod shape;
mod signin;
mod sse;
mod subscriptions;
mod support;
mod tasks;
mod telemetry;
mod transport;
mod upstream;
