//! What the browser-facing endpoints share: form and query parameters read once (a parameter
//! given twice is refused, RFC 6749 §3.1), redirects, and HTML pages that no other site may frame.

use std::collections::HashMap;

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// What a query or form value is escaped with: everything but RFC 3986's unreserved characters.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The largest form body read, in bytes.
pub(super) const MAX_FORM_BYTES: usize = 16 * 1024;

/// The parameters of an `application/x-www-form-urlencoded` text (a query or a form body); an
/// empty value counts as absent. `Err` names a parameter given twice.
pub(super) fn params(raw: &str) -> Result<HashMap<String, String>, String> {
    let mut params = HashMap::new();
    for pair in raw.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(&s.replace('+', " "))
                .decode_utf8_lossy()
                .into_owned()
        };
        let (name, value) = (decode(name), decode(value));
        if value.is_empty() {
            continue;
        }
        if params.insert(name.clone(), value).is_some() {
            return Err(format!("the parameter `{name}` is given more than once"));
        }
    }
    Ok(params)
}

/// `uri` with `pairs` appended to its query.
pub(super) fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = uri.to_owned();
    let mut separator = if uri.contains('?') { '&' } else { '?' };
    for (name, value) in pairs {
        out.push(separator);
        out.push_str(name);
        out.push('=');
        out.extend(utf8_percent_encode(value, VALUE));
        separator = '&';
    }
    out
}

/// A `302 Found` to `location`, never cached.
pub(super) fn redirect(location: &str) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::FOUND;
    let headers = response.headers_mut();
    match HeaderValue::from_str(location) {
        Ok(value) => {
            headers.insert(header::LOCATION, value);
        }
        Err(_) => {
            return page(
                StatusCode::BAD_REQUEST,
                "Sign-in failed",
                "The address to return to cannot be written in a redirect.",
            );
        }
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// `text` safe inside HTML text and quoted attribute values.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// An HTML page: no script, no framing, never cached, sending no referrer.
pub(super) fn html(status: StatusCode, title: &str, body: &str) -> Response {
    let text = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;\
         margin:3rem auto;padding:0 1rem;line-height:1.5}}code{{word-break:break-all}}\
         button{{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}}</style></head>\
         <body>{body}</body></html>\n",
        title = escape(title),
    );
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// A page saying why a sign-in stopped, for a browser that must not be sent back to the client
/// (its redirect URI is unknown or not to be trusted).
pub(super) fn page(status: StatusCode, title: &str, message: &str) -> Response {
    html(
        status,
        title,
        &format!("<h1>{}</h1><p>{}</p>", escape(title), escape(message)),
    )
}

/// The value of the cookie `name` of a request, if it sent one.
pub(super) fn cookie<'h>(headers: &'h http::HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(n, v)| (n == name).then_some(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_decoded_and_a_repeated_one_is_refused() {
        let got = params("a=1&b=x+y%2Fz&c=&d").expect("params");
        assert_eq!(got.get("a").map(String::as_str), Some("1"));
        assert_eq!(got.get("b").map(String::as_str), Some("x y/z"));
        assert!(!got.contains_key("c") && !got.contains_key("d"));
        assert_eq!(
            params("state=1&state=2").expect_err("twice"),
            "the parameter `state` is given more than once"
        );
    }

    #[test]
    fn queries_are_appended_escaped() {
        assert_eq!(
            with_query("https://a.example/cb", &[("code", "a b&c"), ("state", "s")]),
            "https://a.example/cb?code=a%20b%26c&state=s"
        );
        assert_eq!(
            with_query("https://a.example/cb?x=1", &[("error", "access_denied")]),
            "https://a.example/cb?x=1&error=access_denied"
        );
    }

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(
            escape(r#"<script>"x"&'y'</script>"#),
            "&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;"
        );
    }
}
