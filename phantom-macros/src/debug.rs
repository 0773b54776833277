//! `PHANTOM_MACROS_DEBUG=1`: each `#[mcp_router]` prints its expansion to stderr, as Rocket's
//! `ROCKET_CODEGEN_DEBUG` does, so a user can read what the macro made of their impl block.

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The environment variable, read when the macro runs (at compile time).
const VAR: &str = "PHANTOM_MACROS_DEBUG";

/// Whether the variable is `1` or `true`.
pub(crate) fn enabled() -> bool {
    std::env::var(VAR).is_ok_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
}

/// Prints `output`, the expansion of `input`, headed by the impl's type.
pub(crate) fn print(input: &TokenStream, output: &TokenStream) {
    let name = match syn::parse2::<syn::ItemImpl>(input.clone()) {
        Ok(item) => format!("`{}`", compact(&item.self_ty.to_token_stream().to_string())),
        Err(_) => "an item that is not an `impl` block".to_owned(),
    };
    eprintln!(
        "// #[mcp_router] expansion of {name} ({VAR})\n{}// end of the expansion of {name}\n",
        pretty(output)
    );
}

/// The expansion as Rust source: pretty-printed when it parses as a file, else the token string.
pub(crate) fn pretty(tokens: &TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => format!("{tokens}\n"),
    }
}

/// A type as written, without the token string's spaces: `a :: B < u8 >` reads `a::B<u8>`. A space
/// stays only between two word characters (`dyn Trait`).
fn compact(tokens: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let chars: Vec<char> = tokens.chars().collect();
    let mut out = String::with_capacity(tokens.len());
    for (i, &c) in chars.iter().enumerate() {
        let keep =
            c != ' ' || (i > 0 && word(chars[i - 1]) && chars.get(i + 1).is_some_and(|&n| word(n)));
        if keep {
            out.push(c);
        }
    }
    out
}
