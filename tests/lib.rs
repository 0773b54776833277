//! Shared fixtures of phantom's integration tests.
