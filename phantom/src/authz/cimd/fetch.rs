//! The GET of a client metadata document: one connection, made by hand to an address that was
//! vetted, TLS for the URL's host name, HTTP/1.1, the answer read within the size limit.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, StatusCode, header};
use http_body_util::{BodyExt as _, Empty, Limited};
use hyper_util::rt::TokioIo;
use rustls_pki_types::ServerName;

use super::{Fetched, MetadataDocuments, Target, excerpt};

/// Stops the task driving a connection when the fetch ends, however it ends (the time limit
/// drops the fetch midway).
struct Abort(tokio::task::AbortHandle);

impl Drop for Abort {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl MetadataDocuments {
    /// The answer at `target`; why there is none that may be read.
    pub(super) async fn fetch(&self, target: &Target) -> Result<Fetched, String> {
        if let Some(bad) = &self.bad_root {
            return Err(bad.clone());
        }
        let addresses = self.vetted(target).await?;
        let mut config = crate::kernel::tls_config(&self.trust)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let server_name = match target.literal {
            Some(ip) => ServerName::IpAddress(ip.into()),
            None => ServerName::try_from(target.host.clone())
                .map_err(|e| format!("`{}` is not a host name: {e}", target.host))?,
        };
        // Only the addresses vetted above are connected to: no second lookup, so a name whose
        // answer changes in between cannot steer the connection.
        let mut tcp = Err(format!("`{}` has no address", target.host));
        for ip in addresses {
            match tokio::net::TcpStream::connect(SocketAddr::new(ip, target.port)).await {
                Ok(stream) => {
                    tcp = Ok(stream);
                    break;
                }
                Err(e) => tcp = Err(format!("connecting to {ip} port {}: {e}", target.port)),
            }
        }
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(server_name, tcp?)
            .await
            .map_err(|e| format!("TLS with `{}`: {e}", target.host))?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| format!("HTTP with `{}`: {e}", target.host))?;
        let _driving = Abort(tokio::spawn(connection).abort_handle());
        let request = Request::get(target.path_and_query.as_str())
            .header(header::HOST, target.authority.as_str())
            .header(header::ACCEPT, "application/json")
            .header(header::USER_AGENT, "phantom")
            .body(Empty::<Bytes>::new())
            .map_err(|e| format!("the request: {e}"))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| crate::kernel::describe(&e))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(format!(
                "the answer is HTTP {status}, a redirect, which is not followed: the document \
                 is served at its client_id URL itself"
            ));
        }
        if status != StatusCode::OK {
            return Err(format!("the answer is HTTP {status}, not 200"));
        }
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if media != "application/json" && !media.ends_with("+json") {
            return Err(format!(
                "the answer's Content-Type is `{}`, not JSON (`application/json`)",
                excerpt(content_type)
            ));
        }
        let max = self.limits.max_bytes;
        let larger = || format!("the document is larger than {max} bytes (the size limit)");
        let declared = response
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
        if declared.is_some_and(|length| length > max as u64) {
            return Err(larger());
        }
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, max)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    larger()
                } else {
                    format!("reading the document: {e}")
                }
            })?
            .to_bytes();
        Ok(Fetched {
            headers: parts.headers,
            body,
        })
    }
}
