//! Client metadata documents fetched from a real https server: a CA made for the test, a
//! certificate it signed for `client.example`, the server listening on every interface and the
//! name resolved by an injected resolver to the machine's address on its default route — never a
//! loopback one, which is refused, as it must be. The guards stay on: what a test changes is
//! what the name resolves to and which root is trusted.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use super::*;

/// The machine's address on its default route (no packet is sent), when it is one documents may
/// be fetched from. A machine whose only routes are private has none: the tests that need one
/// say so and stop, except on CI, which has one and where they must run.
fn public_address() -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("203.0.113.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    if address::refused(ip).is_none() {
        return Some(ip);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "on CI the default route has a public address; here it is {ip}"
    );
    eprintln!("skipped: this machine's default route has the address {ip}, which is refused");
    None
}

/// Names answered from a table, counting the questions.
#[derive(Clone, Default)]
struct Names {
    table: Arc<HashMap<String, Vec<IpAddr>>>,
    asked: Arc<AtomicUsize>,
}

impl Names {
    fn of(pairs: &[(&str, &[IpAddr])]) -> Self {
        Self {
            table: Arc::new(
                pairs
                    .iter()
                    .map(|(name, ips)| ((*name).to_owned(), ips.to_vec()))
                    .collect(),
            ),
            asked: Arc::default(),
        }
    }
}

impl Resolve for Names {
    async fn resolve(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        self.table.get(host).cloned().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such name in the test")
        })
    }
}

/// A CA's certificate (PEM) and a certificate it signed for `client.example`, with its key.
struct Pki {
    ca: String,
    certificate: CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

fn pki() -> Pki {
    let mut authority = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA");
    authority.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let issuer =
        rcgen::CertifiedIssuer::self_signed(authority, rcgen::KeyPair::generate().expect("CA key"))
            .expect("CA certificate");
    let key = rcgen::KeyPair::generate().expect("key");
    let certificate = rcgen::CertificateParams::new(vec!["client.example".to_owned()])
        .expect("names")
        .signed_by(&key, &issuer)
        .expect("certificate");
    Pki {
        ca: issuer.pem(),
        certificate: certificate.der().clone(),
        key: PrivatePkcs8KeyDer::from(key.serialize_der()),
    }
}

/// An https server for `client.example` on every interface: each path answers its own way, and
/// it counts the TCP connections it accepts and the requests it reads.
struct Server {
    port: u16,
    ca: String,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
}

impl Server {
    async fn start() -> Self {
        let pki = pki();
        #[allow(deprecated)] // the provider phantom's `tls` feature uses
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![pki.certificate.clone()],
                PrivateKeyDer::Pkcs8(pki.key.clone_key()),
            )
            .expect("the certificate");
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        // `[::]` takes IPv4 too (Linux, `bindv6only` 0: the default), so an address that slipped
        // past the guard — 127.0.0.1, ::1, ::ffff:127.0.0.1 — would reach this server and count;
        // without IPv6, every IPv4 interface.
        let listener = match tokio::net::TcpListener::bind("[::]:0").await {
            Ok(listener) => listener,
            Err(_) => tokio::net::TcpListener::bind("0.0.0.0:0")
                .await
                .expect("a port"),
        };
        let port = listener.local_addr().expect("address").port();
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (counted, seen) = (Arc::clone(&connections), Arc::clone(&requests));
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let (acceptor, seen) = (acceptor.clone(), Arc::clone(&seen));
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") && head.len() < 8192 {
                        if tls.read(&mut byte).await.unwrap_or(0) == 0 {
                            return;
                        }
                        head.push(byte[0]);
                    }
                    let head = String::from_utf8_lossy(&head).into_owned();
                    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
                    seen.lock().unwrap().push(path.clone());
                    answer(&mut tls, &path, port).await;
                });
            }
        });
        Self {
            port,
            ca: pki.ca,
            connections,
            requests,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("https://client.example:{}{path}", self.port)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// The document of the client at `path` on the server's `port`.
fn document(path: &str, port: u16) -> String {
    serde_json::json!({
        "client_id": format!("https://client.example:{port}{path}"),
        "client_name": "Notes",
        "redirect_uris": ["http://127.0.0.1/callback", "https://app.example/cb"],
        "token_endpoint_auth_method": "none",
    })
    .to_string()
}

/// Writes the answer for `path`.
async fn answer<W: tokio::io::AsyncWrite + Unpin>(out: &mut W, path: &str, port: u16) {
    let json = "application/json";
    let (status, content_type, extra, body) = match path {
        "/good.json" => (
            "200 OK",
            json,
            "Cache-Control: max-age=600\r\n",
            document(path, port),
        ),
        "/brief.json" => (
            "200 OK",
            json,
            "Cache-Control: max-age=1\r\n",
            document(path, port),
        ),
        "/plain.json" => ("200 OK", json, "", document(path, port)),
        "/no-store.json" => (
            "200 OK",
            json,
            "Cache-Control: no-store\r\n",
            document(path, port),
        ),
        "/wrong-type.json" => ("200 OK", "text/html", "", document(path, port)),
        "/mismatch.json" => ("200 OK", json, "", document("/other.json", port)),
        "/bad-redirect.json" => {
            let mut document: Value = serde_json::from_str(&document(path, port)).unwrap();
            document["redirect_uris"] = serde_json::json!(["http://evil.example/cb"]);
            ("200 OK", json, "", document.to_string())
        }
        "/secret.json" => {
            let mut document: Value = serde_json::from_str(&document(path, port)).unwrap();
            document["token_endpoint_auth_method"] = "client_secret_post".into();
            ("200 OK", json, "", document.to_string())
        }
        "/redirect.json" => {
            let to = format!("Location: https://client.example:{port}/good.json\r\n");
            let head = format!("HTTP/1.1 302 Found\r\n{to}Content-Length: 0\r\n\r\n");
            let _ = out.write_all(head.as_bytes()).await;
            return;
        }
        "/big.json" | "/big-streamed.json" => {
            let padding = "x".repeat(8 * 1024);
            let mut document: Value = serde_json::from_str(&document(path, port)).unwrap();
            document["padding"] = padding.into();
            let body = document.to_string();
            if path == "/big.json" {
                ("200 OK", json, "", body)
            } else {
                // Chunked, no length: reading must stop by itself.
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                            Transfer-Encoding: chunked\r\n\r\n";
                let _ = out.write_all(head.as_bytes()).await;
                for chunk in body.as_bytes().chunks(1024) {
                    let framed =
                        [format!("{:x}\r\n", chunk.len()).as_bytes(), chunk, b"\r\n"].concat();
                    if out.write_all(&framed).await.is_err() {
                        return;
                    }
                }
                let _ = out.write_all(b"0\r\n\r\n").await;
                return;
            }
        }
        "/slow.json" => {
            // A byte every 100 ms of a document that would take minutes.
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                        Content-Length: 4000\r\n\r\n";
            let _ = out.write_all(head.as_bytes()).await;
            for _ in 0..4000 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if out.write_all(b" ").await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
            return;
        }
        _ => (
            "404 Not Found",
            "text/plain",
            "",
            "no such document".to_owned(),
        ),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = out.write_all(head.as_bytes()).await;
    let _ = out.write_all(body.as_bytes()).await;
    let _ = out.shutdown().await;
}

/// The machine's public address, a server, and `client.example` resolved to that address.
async fn serving() -> Option<(IpAddr, Server, Names)> {
    let public = public_address()?;
    let names = Names::of(&[("client.example", &[public])]);
    Some((public, Server::start().await, names))
}

/// Documents resolved by `names`, trusting the server's CA, the cache's floor at zero so that a
/// short `max-age` is seen to pass.
fn documents(server: &Server, names: &Names) -> MetadataDocuments {
    MetadataDocuments::new()
        .resolver(names.clone())
        .root_certificate(server.ca.as_bytes())
        .limits(DocumentLimits {
            min_ttl: Duration::ZERO,
            ..DocumentLimits::default()
        })
}

#[tokio::test]
async fn a_good_document_is_fetched_then_kept_as_long_as_its_headers_say() {
    let Some((_, server, names)) = serving().await else {
        return;
    };
    let documents = documents(&server, &names);

    let url = server.url("/good.json");
    let client = documents.client(&url).await.expect("a good document");
    assert_eq!(client.client_name.as_deref(), Some("Notes"));
    assert_eq!(
        client.redirect_uris,
        ["http://127.0.0.1/callback", "https://app.example/cb"]
    );
    assert_eq!(client.auth_method, AuthMethod::None);
    // max-age=600: the second call is answered from the cache, and so is a clone's.
    assert_eq!(documents.client(&url).await, Ok(client.clone()));
    assert_eq!(documents.clone().client(&url).await, Ok(client));
    assert_eq!(server.requests(), ["/good.json"]);
    assert_eq!(server.connections(), 1);

    // max-age=1: kept for a second, then fetched again.
    let brief = server.url("/brief.json");
    documents.client(&brief).await.expect("fetched");
    documents.client(&brief).await.expect("kept");
    assert_eq!(server.requests().len(), 2);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    documents.client(&brief).await.expect("fetched again");
    assert_eq!(server.requests().len(), 3);

    // With the default floor (60 s): an answer without caching headers is kept that long, and
    // a no-store one never.
    let documents = documents.limits(DocumentLimits::default());
    let plain = server.url("/plain.json");
    let no_store = server.url("/no-store.json");
    for url in [&plain, &plain, &no_store, &no_store] {
        documents.client(url).await.expect("a good document");
    }
    assert_eq!(
        server.requests()[3..],
        ["/plain.json", "/no-store.json", "/no-store.json"]
    );
}

#[tokio::test]
async fn addresses_that_are_not_public_are_refused_before_any_connection() {
    let Some((public, server, _)) = serving().await else {
        return;
    };
    let path = "/good.json";
    let cases = [
        ("127.0.0.1", "a loopback address"),
        (
            "169.254.169.254",
            "a link-local address (169.254/16, fe80::/10)",
        ),
        (
            "10.0.0.5",
            "a private address (10/8, 172.16/12, 192.168/16)",
        ),
        ("192.168.1.1", "a private address"),
        ("::1", "a loopback address"),
        ("fd00::1", "a unique-local address (fc00::/7)"),
        ("::ffff:127.0.0.1", "a loopback address (IPv4-mapped)"),
        (
            "100.64.0.1",
            "a shared (carrier-grade NAT) address (100.64/10)",
        ),
        ("0.0.0.0", "an unspecified address"),
    ];
    for (ip, class) in cases {
        // Alone, and before the public address: one refused address among good ones refuses
        // the name.
        let resolved: [IpAddr; 2] = [ip.parse().unwrap(), public];
        for addresses in [&resolved[..1], &resolved[..]] {
            let names = Names::of(&[("client.example", addresses)]);
            let refused = documents(&server, &names)
                .client(&server.url(path))
                .await
                .expect_err("refused");
            let said = refused.problem();
            assert!(
                said.starts_with(&format!("`client.example` resolves to {ip}, {class}")),
                "{addresses:?}: {said}"
            );
            assert!(said.contains("public addresses only"), "{said}");
            assert_eq!(names.asked.load(Ordering::SeqCst), 1);
        }
    }
    // The public address last: every address is vetted, not only the first.
    let names = Names::of(&[("client.example", &[public, "10.0.0.5".parse().unwrap()])]);
    let refused = documents(&server, &names)
        .client(&server.url(path))
        .await
        .unwrap_err();
    assert!(
        refused.problem().contains("10.0.0.5, a private address"),
        "{refused}"
    );
    assert_eq!(server.connections(), 0, "no connection was made");
    // An address literal in the URL is vetted the same, without resolving.
    let names = Names::default();
    for literal in ["127.0.0.1", "[::1]", "[::ffff:7f00:1]", "169.254.169.254"] {
        let url = format!("https://{literal}:{}{path}", server.port);
        let refused = documents(&server, &names).client(&url).await.unwrap_err();
        assert!(
            refused.problem().contains("public addresses only"),
            "{refused}"
        );
    }
    assert_eq!(names.asked.load(Ordering::SeqCst), 0);
    assert_eq!(server.connections(), 0, "still no connection");
}

#[tokio::test]
async fn the_connection_goes_to_the_vetted_address_and_verifies_the_host_name() {
    let Some((public, server, _)) = serving().await else {
        return;
    };
    // A resolver that answers the public address once, then loopback (a rebinding name): the
    // one lookup made is the one connected to.
    struct Rebinding(IpAddr, Arc<AtomicUsize>);
    impl Resolve for Rebinding {
        async fn resolve(&self, _host: &str) -> std::io::Result<Vec<IpAddr>> {
            let first = self.1.fetch_add(1, Ordering::SeqCst) == 0;
            Ok(vec![if first { self.0 } else { [127, 0, 0, 1].into() }])
        }
    }
    let asked = Arc::new(AtomicUsize::new(0));
    let documents = MetadataDocuments::new()
        .resolver(Rebinding(public, Arc::clone(&asked)))
        .root_certificate(server.ca.as_bytes());
    documents
        .client(&server.url("/no-store.json"))
        .await
        .expect("fetched from the vetted address");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "resolved once, not again to connect"
    );
    let refused = documents
        .client(&server.url("/no-store.json"))
        .await
        .expect_err("the second answer is loopback");
    assert!(
        refused.problem().contains("a loopback address"),
        "{refused}"
    );

    // The certificate names client.example: another name that resolves to the same server fails.
    let names = Names::of(&[("other.example", &[public])]);
    let url = format!("https://other.example:{}/good.json", server.port);
    let refused = documents_for(&names, Some(&server.ca))
        .client(&url)
        .await
        .unwrap_err();
    assert!(
        refused.problem().contains("TLS with `other.example`")
            && refused
                .problem()
                .contains("not valid for name \"other.example\""),
        "{refused}"
    );
    // A certificate of another CA is not trusted.
    let names = Names::of(&[("client.example", &[public])]);
    let refused = documents_for(&names, Some(&pki().ca))
        .client(&server.url("/good.json"))
        .await
        .unwrap_err();
    assert!(
        refused.problem().contains("TLS with `client.example`")
            && refused.problem().contains("invalid peer certificate"),
        "{refused}"
    );
    assert!(server.requests().len() == 1, "{:?}", server.requests());
}

fn documents_for(names: &Names, ca: Option<&str>) -> MetadataDocuments {
    let documents = MetadataDocuments::new().resolver(names.clone());
    match ca {
        Some(ca) => documents.root_certificate(ca.as_bytes()),
        None => documents,
    }
}

#[tokio::test]
async fn answers_that_are_not_a_good_document_are_refused_naming_why() {
    let Some((_, server, names)) = serving().await else {
        return;
    };
    let documents = documents(&server, &names);
    for (path, says) in [
        (
            "/redirect.json",
            "HTTP 302 Found, a redirect, which is not followed",
        ),
        ("/missing.json", "HTTP 404 Not Found, not 200"),
        ("/wrong-type.json", "Content-Type is `text/html`, not JSON"),
        ("/big.json", "larger than 5120 bytes (the size limit)"),
        (
            "/big-streamed.json",
            "larger than 5120 bytes (the size limit)",
        ),
        ("/mismatch.json", "`client_id` is `https://client.example:"),
        (
            "/bad-redirect.json",
            "`http://evil.example/cb` is http:// to a host that is not loopback",
        ),
        (
            "/secret.json",
            "`client_secret_post`, which needs a shared secret",
        ),
    ] {
        let refused = documents.client(&server.url(path)).await.expect_err(path);
        assert!(refused.problem().contains(says), "{path}: {refused}");
        assert!(refused.to_string().contains(&server.url(path)), "{refused}");
    }
    // The redirect's target was not asked for; nothing refused was kept.
    assert!(!server.requests().contains(&"/good.json".to_owned()));
    assert_eq!(documents.cache.lock().unwrap().len(), 0);
    // An http:// client_id is refused before anything is resolved.
    let url = format!("http://client.example:{}/good.json", server.port);
    let refused = documents.client(&url).await.unwrap_err();
    assert!(refused.problem().contains("must be https://"), "{refused}");
    assert_eq!(names.asked.load(Ordering::SeqCst), 8);
}

#[tokio::test]
async fn a_slow_document_is_cut_off_at_the_time_limit() {
    let Some((_, server, names)) = serving().await else {
        return;
    };
    let documents = documents(&server, &names).limits(DocumentLimits {
        timeout: Duration::from_millis(600),
        ..DocumentLimits::default()
    });
    let started = Instant::now();
    let refused = documents
        .client(&server.url("/slow.json"))
        .await
        .expect_err("too slow");
    let took = started.elapsed();
    assert!(
        refused
            .problem()
            .contains("not read within 600ms (the time limit)"),
        "{refused}"
    );
    assert!(took < Duration::from_secs(3), "cut off after {took:?}");
    assert_eq!(server.requests(), ["/slow.json"], "the request was sent");
}

#[tokio::test]
async fn a_root_certificate_that_does_not_read_fails_every_fetch_naming_it() {
    let names = Names::default();
    let refused = MetadataDocuments::new()
        .resolver(names.clone())
        .root_certificate("not a certificate")
        .client("https://client.example/c.json")
        .await
        .unwrap_err();
    assert!(
        refused
            .problem()
            .starts_with("the certificate given to `MetadataDocuments::root_certificate`"),
        "{refused}"
    );
    assert_eq!(names.asked.load(Ordering::SeqCst), 0);
}
