//! Attribute macros of phantom. Depend on `phantom-mcp` and use `phantom::mcp_router`.
use proc_macro::TokenStream;
/// x
#[proc_macro_attribute]
pub fn mcp_router(_a: TokenStream, i: TokenStream) -> TokenStream { i }
/// x
#[proc_macro_attribute]
pub fn tool(_a: TokenStream, i: TokenStream) -> TokenStream { i }
/// x
#[proc_macro_attribute]
pub fn prompt(_a: TokenStream, i: TokenStream) -> TokenStream { i }
/// x
#[proc_macro_attribute]
pub fn resource(_a: TokenStream, i: TokenStream) -> TokenStream { i }
