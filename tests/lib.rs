//! Shared fixtures of phantom's integration tests.

pub mod child;
pub mod fuzzing;
pub mod logs;
pub mod paging;
pub mod redis;
pub mod slow;
