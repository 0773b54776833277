//! Transports: Streamable HTTP (axum) and stdio.

pub mod http;
mod sessions;
pub mod sse;
pub mod stdio;
