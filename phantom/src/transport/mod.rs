//! Transports: Streamable HTTP (axum) and stdio.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
mod sessions;
mod signal;
#[cfg(feature = "http")]
pub mod sse;
pub mod stdio;

pub use signal::shutdown_signal;
