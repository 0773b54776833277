//! `phantom::client` over https (feature `tls`): a CA and a server certificate for `localhost`
//! made at test time, phantom's router (and the scripted OAuth servers) behind a rustls acceptor,
//! and the client trusting the CA through `Builder::root_certificate` — verification is never
//! turned off.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use phantom::client::{Client, ClientError, Era, OAuth};
use phantom::http::HttpConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::json;

use crate::scripted::{self, REDIRECT, Script};
use crate::support::Lab;

/// A CA made for one test, and a certificate it signed for `localhost` and `127.0.0.1`.
struct Pki {
    /// The CA's certificate, PEM: what the client is given to trust.
    ca: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivatePkcs8KeyDer<'static>,
}

fn make_pki() -> Pki {
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "phantom test CA");
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let ca = rcgen::CertifiedIssuer::self_signed(params, ca_key).expect("CA certificate");
    let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
    let server_key = rcgen::KeyPair::generate().expect("server key");
    let server = rcgen::CertificateParams::new(names)
        .expect("server params")
        .signed_by(&server_key, &ca)
        .expect("server certificate");
    Pki {
        ca: ca.pem(),
        chain: vec![server.der().clone()],
        key: PrivatePkcs8KeyDer::from(server_key.serialize_der()),
    }
}

/// A listener serving `app` over TLS with `pki`'s certificate (h2 and http/1.1 by ALPN); the
/// ALPN protocol each connection chose.
struct TlsServer {
    port: u16,
    alpn: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

async fn serve_tls(pki: &Pki, app: axum::Router, listener: tokio::net::TcpListener) -> TlsServer {
    #[allow(deprecated)] // the provider phantom's `tls` feature uses
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), PrivateKeyDer::Pkcs8(pki.key.clone_key()))
        .expect("the server's certificate");
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let port = listener.local_addr().expect("address").port();
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&alpn);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, app, seen) = (acceptor.clone(), app.clone(), Arc::clone(&seen));
            tokio::spawn(async move {
                // A client that does not trust the certificate ends the handshake: nothing to
                // serve.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let protocol = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
                seen.lock().unwrap().push(protocol);
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection_with_upgrades(
                        TokioIo::new(tls),
                        TowerToHyperService::new(app),
                    )
                    .await;
            });
        }
    });
    TlsServer { port, alpn }
}

async fn bind() -> tokio::net::TcpListener {
    tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0")
}

/// phantom's `Lab` server over https.
async fn lab_over_tls(pki: &Pki) -> TlsServer {
    let app = phantom::http::service(Lab::default(), HttpConfig::default());
    serve_tls(pki, app, bind().await).await
}

#[tokio::test]
async fn https_with_the_ca_added_as_a_root_connects_and_calls_in_both_eras() {
    let pki = make_pki();
    let server = lab_over_tls(&pki).await;
    let url = format!("https://localhost:{}/mcp", server.port);
    for era in [Era::Legacy, Era::Modern] {
        let client = Client::http(&url)
            .era(era)
            .root_certificate(pki.ca.as_bytes())
            .connect()
            .await
            .unwrap_or_else(|e| panic!("{era:?}: connects over https: {e}"));
        let echo = client.call_tool("echo", json!({"text": "over tls"})).await;
        let said = echo.expect("tools/call").text_content();
        assert_eq!(
            (client.server_info()["name"].as_str(), said.as_str()),
            (Some("lab"), "echo: over tls"),
            "{era:?}"
        );
    }
    // The client offered h2 and http/1.1; the server chose h2 on every connection.
    let alpn = server.alpn.lock().unwrap().clone();
    assert!(!alpn.is_empty());
    assert!(
        alpn.iter().all(|p| p.as_deref() == Some(b"h2".as_slice())),
        "{alpn:?}"
    );
}

#[tokio::test]
async fn without_the_root_the_connection_fails_naming_the_certificate_problem() {
    let pki = make_pki();
    let server = lab_over_tls(&pki).await;
    for url in [
        format!("https://localhost:{}/mcp", server.port),
        format!("https://127.0.0.1:{}/mcp", server.port),
    ] {
        let refused = tokio::time::timeout(Duration::from_secs(10), Client::http(&url).connect())
            .await
            .expect("an answer, not a hang")
            .expect_err("the server's CA is not trusted");
        let ClientError::Transport(message) = &refused else {
            panic!("a transport error: {refused:?}");
        };
        assert!(
            message.contains("invalid peer certificate") && message.contains("UnknownIssuer"),
            "{message}"
        );
        assert!(message.contains(&url), "{message}");
    }
    // Another CA's root does not make it trusted either (a CA of the same name: the signature
    // does not verify).
    let other = make_pki();
    let url = format!("https://localhost:{}/mcp", server.port);
    let refused = Client::http(&url)
        .root_certificate(other.ca.as_bytes())
        .connect()
        .await
        .expect_err("signed by another CA");
    assert!(
        refused
            .to_string()
            .contains("invalid peer certificate: BadSignature"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_root_certificate_that_does_not_read_fails_connect_naming_it() {
    for pem in [
        b"not a certificate".as_slice(),
        b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    ] {
        let refused = Client::http("https://localhost:9/mcp")
            .root_certificate(pem)
            .connect()
            .await
            .expect_err("no certificate to trust");
        let ClientError::Transport(message) = &refused else {
            panic!("a transport error: {refused:?}");
        };
        assert!(
            message
                .starts_with("the certificate given to `Builder::root_certificate` does not read"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn the_oauth_flow_runs_over_https_with_the_clients_root() {
    let pki = make_pki();
    let listener = bind().await;
    let base = format!(
        "https://localhost:{}",
        listener.local_addr().expect("address").port()
    );
    let script = Arc::new(Mutex::new(Script::default()));
    serve_tls(&pki, scripted::app(&base, &script), listener).await;
    // Discovery (resource and authorization server metadata), registration, the authorization
    // redirect fetched by the default step, the token request and the MCP requests: all https,
    // all trusting the one root given to the builder.
    let client = Client::http(&format!("{base}/mcp"))
        .era(Era::Legacy)
        .root_certificate(pki.ca.as_bytes())
        .oauth(OAuth::new(REDIRECT))
        .connect()
        .await
        .expect("the flow runs over https");
    let result = client.call_tool("echo", json!({})).await.expect("calls");
    assert_eq!(result.text_content(), "authorized");
    let script = script.lock().unwrap();
    assert_eq!(
        (
            script.registrations,
            script.authorizations,
            script.unauthorized
        ),
        (1, 1, 1)
    );
    let token = script.token.as_ref().expect("a token request");
    assert_eq!(token["grant_type"], "authorization_code");
}

/// Where the child of the next test finds the server (and knows it is the child).
const CHILD_URL: &str = "PHANTOM_TLS_CHILD_URL";

/// Without `root_certificate` the client trusts the platform's store, which `SSL_CERT_FILE` can
/// name (as for curl): this test binary run again (the store is read once per process) with the
/// test CA there connects and calls.
#[tokio::test]
async fn without_an_added_root_the_platforms_store_is_trusted() {
    if let Ok(url) = std::env::var(CHILD_URL) {
        let client = Client::http(&url)
            .connect()
            .await
            .expect("the CA of SSL_CERT_FILE is trusted");
        let echo = client.call_tool("echo", json!({"text": "platform"})).await;
        assert_eq!(echo.expect("tools/call").text_content(), "echo: platform");
        return;
    }
    let pki = make_pki();
    let server = lab_over_tls(&pki).await;
    let dir = crate::oauth::scratch();
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let bundle = dir.join("ca.pem");
    std::fs::write(&bundle, &pki.ca).expect("the CA written");
    let child = tokio::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "tls::without_an_added_root_the_platforms_store_is_trusted",
            "--exact",
            "--nocapture",
        ])
        .env(CHILD_URL, format!("https://localhost:{}/mcp", server.port))
        .env("SSL_CERT_FILE", &bundle)
        .env_remove("SSL_CERT_DIR")
        .output()
        .await
        .expect("the child runs");
    let _ = std::fs::remove_dir_all(&dir);
    let said = String::from_utf8_lossy(&child.stdout);
    assert!(
        child.status.success() && said.contains("1 passed"),
        "{said}{}",
        String::from_utf8_lossy(&child.stderr)
    );
}
