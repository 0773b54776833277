//! A browser, played by the test: GETs and form POSTs to absolute `http://127.0.0.1:<port>` URLs,
//! its cookies kept per origin, redirects followed by hand (each step's answer is the test's to
//! check).

use std::collections::HashMap;
use std::sync::Mutex;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;

/// An answer: status, headers, body as text.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: String,
}

impl Page {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `Location` of a redirect.
    pub(crate) fn location(&self) -> Option<&str> {
        self.header("location")
    }

    /// The body as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}), status {}: {}", self.status, self.body))
    }

    /// The value of the first `<input … name="name" value="…">` of the page.
    pub(crate) fn input(&self, name: &str) -> Option<String> {
        let at = self.body.find(&format!("name=\"{name}\" value=\""))?;
        let rest = &self.body[at + name.len() + 15..];
        Some(rest[..rest.find('"')?].to_owned())
    }
}

/// The query parameters of `url` (decoded).
pub(crate) fn query(url: &str) -> HashMap<String, String> {
    let query = url.split_once('?').map_or("", |(_, q)| q);
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(n, v)| (decode(n), decode(v)))
        .collect()
}

/// A form-urlencoded text decoded.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'+' => out.push(b' '),
            b'%' if at + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap_or("zz");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        at += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A form value encoded: every byte but the unreserved ones as `%XX`.
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A form body of `pairs`.
pub(crate) fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| format!("{n}={}", encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// The browser: cookies by host (as browsers keep them: not by port).
#[derive(Debug, Default)]
pub(crate) struct Browser {
    cookies: Mutex<HashMap<String, HashMap<String, String>>>,
}

impl Browser {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) async fn get(&self, url: &str) -> Page {
        self.send(Method::GET, url, &[], None).await
    }

    /// A form POST.
    pub(crate) async fn post(&self, url: &str, body: &str) -> Page {
        self.send(
            Method::POST,
            url,
            &[("content-type", "application/x-www-form-urlencoded")],
            Some(body),
        )
        .await
    }

    /// A form POST with extra headers (`Authorization`), cookies not sent: a client's request.
    pub(crate) async fn post_as_client(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Page {
        let mut all = vec![("content-type", "application/x-www-form-urlencoded")];
        all.extend_from_slice(headers);
        send(Method::POST, url, &all, Some(body), None).await
    }

    async fn send(
        &self,
        method: Method,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&str>,
    ) -> Page {
        let origin = host(url).to_owned();
        let cookie = self.cookies.lock().unwrap().get(&origin).map(|jar| {
            jar.iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join("; ")
        });
        let page = send(method, url, headers, body, cookie.as_deref()).await;
        for set in page.headers.get_all("set-cookie") {
            let set = set.to_str().expect("an ASCII cookie");
            let pair = set.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                let mut jar = self.cookies.lock().unwrap();
                let jar = jar.entry(origin.clone()).or_default();
                if value.is_empty() || set.contains("Max-Age=0") {
                    jar.remove(name);
                } else {
                    jar.insert(name.to_owned(), value.to_owned());
                }
            }
        }
        page
    }
}

fn host(url: &str) -> &str {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let end = rest.find(['/', '?', ':']).unwrap_or(rest.len());
    &rest[..end]
}

async fn send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
    cookie: Option<&str>,
) -> Page {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let path = if path.is_empty() { "/" } else { path };
    let tcp = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .expect("handshake");
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let mut request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("host", authority);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let request = request
        .body(Full::new(Bytes::from(body.unwrap_or_default().to_owned())))
        .expect("a request");
    let response = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        sender.send_request(request),
    )
    .await
    .expect("an answer in time")
    .expect("a response");
    let (parts, body) = response.into_parts();
    let body = body.collect().await.expect("a body").to_bytes();
    Page {
        status: parts.status,
        headers: parts.headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}
