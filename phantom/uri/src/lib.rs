//! The URI grammar of [phantom-mcp](https://crates.io/crates/phantom-mcp), shared by its runtime and
//! its attribute macros so that what `#[resource("…")]` accepts at compile time is exactly what the
//! server matches at run time.
//!
//! This crate depends on `std` only. Do not depend on it directly: use `phantom-mcp`, which
//! re-exports what applications need under `phantom::uri`.
//!
//! ```
//! use phantom_uri::Template;
//!
//! let t = Template::parse("studies:///studies/<id>/files/<path..>")?;
//! assert_eq!(t.params().collect::<Vec<_>>(), ["id", "path"]);
//! assert_eq!(t.to_rfc6570(), "studies:///studies/{id}/files/{+path}");
//! # Ok::<(), phantom_uri::TemplateError>(())
//! ```

pub mod skill;
pub mod template;

pub use template::{Segment, Template, TemplateError, split_uri};
