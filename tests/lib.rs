//! Shared fixtures of phantom's integration tests.

pub mod fuzzing;
pub mod redis;
