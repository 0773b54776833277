//! The HTTP client's connections, for every part of phantom that sends a request (the client's
//! MCP link, its OAuth flow, `JwtVerifier::discover`): plain TCP, and TLS through rustls with the feature `tls` — the
//! platform's trusted roots, and the roots an application adds.
//!
//! With `tls` alone (neither `client` nor `jwt`) nothing here is used: the feature only builds it.
#![cfg_attr(not(feature = "client"), allow(dead_code))]

use hyper_util::client::legacy::Client as Hyper;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

/// What a client connects with: TCP for `http://`, and rustls for `https://` with `tls`.
#[cfg(feature = "tls")]
pub(crate) type Connector = hyper_rustls::HttpsConnector<HttpConnector>;
/// What a client connects with: TCP, `http://` only (no feature `tls`).
#[cfg(not(feature = "tls"))]
pub(crate) type Connector = HttpConnector;

/// The certificates a connection trusts: the platform's roots, and those added with
/// [`Trust::add_pem`]. Without `tls` there is nothing to trust.
#[derive(Clone, Debug, Default)]
pub(crate) struct Trust {
    #[cfg(feature = "tls")]
    extra: Vec<rustls_pki_types::CertificateDer<'static>>,
}

impl Trust {
    /// Trusts the certificates of `pem` (one or more `CERTIFICATE` blocks) as roots too; why it
    /// does not read otherwise.
    #[cfg(feature = "tls")]
    pub(crate) fn add_pem(&mut self, pem: &[u8]) -> Result<(), String> {
        use rustls_pki_types::CertificateDer;
        use rustls_pki_types::pem::PemObject as _;
        let mut found = 0;
        for certificate in CertificateDer::pem_slice_iter(pem) {
            let certificate = certificate.map_err(|e| format!("it is not PEM: {e}"))?;
            let mut check = rustls::RootCertStore::empty();
            check
                .add(certificate.clone())
                .map_err(|e| format!("a certificate in it does not read: {e}"))?;
            self.extra.push(certificate);
            found += 1;
        }
        if found == 0 {
            return Err("it holds no `-----BEGIN CERTIFICATE-----` block".to_owned());
        }
        Ok(())
    }
}

/// A hyper client over [`connector`]: what a part of phantom that sends requests holds.
pub(crate) fn client<B>(trust: &Trust) -> Result<Hyper<Connector, B>, String>
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
{
    Ok(Hyper::builder(TokioExecutor::new()).build(connector(trust)?))
}

/// The connector of a client that trusts `trust` (with `tls`: the platform's roots, loaded once
/// per process, and the ones added; http/1.1 and h2 offered by ALPN).
#[cfg(feature = "tls")]
pub(crate) fn connector(trust: &Trust) -> Result<Connector, String> {
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls_config(trust)?)
        .https_or_http()
        .enable_all_versions()
        .build())
}

/// The TLS configuration of a connection that trusts `trust`: the platform's roots and the ones
/// added, rustls's safe defaults with the `ring` provider; why there is none.
#[cfg(feature = "tls")]
pub(crate) fn tls_config(trust: &Trust) -> Result<rustls::ClientConfig, String> {
    let mut roots = platform_roots().clone();
    for certificate in &trust.extra {
        roots
            .add(certificate.clone())
            .map_err(|e| format!("a root certificate does not read: {e}"))?;
    }
    if roots.is_empty() {
        return Err(
            "no trusted root certificate: the platform's store has none (on Linux, install the \
             `ca-certificates` package, or set `SSL_CERT_FILE`)"
                .to_owned(),
        );
    }
    // rustls deprecates its `ring` provider for lacking post-quantum key exchange; it is the one
    // that builds without cmake and nasm (docs/ARCHITECTURE.md, "Cargo features").
    #[allow(deprecated)]
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS set-up: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The connector of a client: TCP, `http://` only.
#[cfg(not(feature = "tls"))]
pub(crate) fn connector(trust: &Trust) -> Result<Connector, String> {
    let Trust {} = trust;
    Ok(HttpConnector::new())
}

/// Whether a request to `uri` can be sent: its scheme is `http`, or `https` with `tls`; why not
/// otherwise (without the URL, which the caller names as it may: without its query).
pub(crate) fn check_scheme(uri: &http::Uri) -> Result<(), &'static str> {
    match uri.scheme_str() {
        Some("http") => Ok(()),
        Some("https") if cfg!(feature = "tls") => Ok(()),
        Some("https") => Err(
            "https:// needs phantom's `tls` feature (`phantom-mcp` with the feature \"tls\" \
             beside \"client\" or \"jwt\"), or a proxy in front that speaks TLS",
        ),
        _ => Err("only http:// and https:// URLs are served"),
    }
}

/// An error of the HTTP client with its causes (hyper's says only "client error (Connect)"; the
/// refused connection or the certificate that did not verify is in its sources).
pub(crate) fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

/// The platform's trusted roots (`rustls-native-certs`: the system's store, or `SSL_CERT_FILE`
/// / `SSL_CERT_DIR`), read once per process; those that do not load are logged at `DEBUG`.
#[cfg(feature = "tls")]
fn platform_roots() -> &'static rustls::RootCertStore {
    static ROOTS: std::sync::OnceLock<rustls::RootCertStore> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for error in &found.errors {
            tracing::debug!(%error, "the platform's root certificates do not all load");
        }
        let mut roots = rustls::RootCertStore::empty();
        let (loaded, unparsed) = roots.add_parsable_certificates(found.certs);
        tracing::debug!(loaded, unparsed, "the platform's root certificates");
        roots
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_https_url_needs_the_tls_feature_or_is_served() {
        let https: http::Uri = "https://mcp.example.com/mcp".parse().unwrap();
        let checked = check_scheme(&https);
        if cfg!(feature = "tls") {
            assert_eq!(checked, Ok(()));
        } else {
            let error = checked.unwrap_err();
            assert!(
                error.starts_with("https:// needs phantom's `tls` feature"),
                "{error}"
            );
        }
        let http: http::Uri = "http://127.0.0.1/mcp".parse().unwrap();
        assert_eq!(check_scheme(&http), Ok(()));
        let other: http::Uri = "ftp://example.com/".parse().unwrap();
        assert!(
            check_scheme(&other)
                .unwrap_err()
                .contains("only http:// and https://")
        );
    }

    #[cfg(feature = "tls")]
    #[test]
    fn a_pem_that_holds_no_certificate_is_refused() {
        let mut trust = Trust::default();
        let error = trust.add_pem(b"not a certificate").unwrap_err();
        assert!(
            error.contains("no `-----BEGIN CERTIFICATE-----`"),
            "{error}"
        );
        let garbled = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        assert!(trust.add_pem(garbled).is_err());
        assert!(trust.extra.is_empty());
    }
}
