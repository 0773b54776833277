//! `fanout`: one resource update announced to many open streams — legacy GET streams of
//! subscribed sessions, or 2026-07-28 `subscriptions/listen` streams — timed from the call that
//! announces it to the last stream that receives it.
//!
//! The driver opens the streams (each on its own connection), reads the server's RSS before and
//! after (from `/proc/$SERVER_PID`, which the runner sets) for the memory each open stream costs,
//! then calls the server's `touch` tool once per round and waits until every stream has the
//! update. Each round's sample is the time to the last delivery.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::load::{Conn, Era, Stats, Target};
use crate::runner::{clk_tck, cpu_ticks, rss_kb};

/// The resource every stream follows (a `users://<id>/profile` of both echo servers).
const URI: &str = "users://1/profile";
/// What marks an update in a stream.
const UPDATED: &[u8] = b"notifications/resources/updated";
/// Connections that open the sessions and subscribe them.
const SETUP_CONNS: usize = 16;

/// What a fan-out run measured besides its samples.
pub(crate) struct Measured {
    /// Per round: µs from the `touch` call to the last stream's delivery.
    pub(crate) samples: Vec<u64>,
    /// Server RSS growth per open stream, in KB (`NaN` without `SERVER_PID`).
    pub(crate) kb_per_stream: f64,
    /// Updates delivered in all.
    pub(crate) deliveries: u64,
    /// Server CPU per delivery during the rounds, in µs (`NaN` without `SERVER_PID`).
    pub(crate) cpu_us_per_delivery: f64,
}

/// How the streams reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    /// HTTP/1.1: one connection per stream.
    H1,
    /// HTTP/2 (prior knowledge): this many streams share each connection.
    H2 {
        /// Streams per connection.
        per_conn: usize,
    },
}

/// Where one stream's request goes.
enum Via {
    H1,
    H2(hyper::client::conn::http2::SendRequest<Full<Bytes>>),
}

pub(crate) async fn fanout(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    streams: usize,
    rounds: usize,
    era: Era,
    wire: Wire,
) -> Result<Measured, String> {
    let sessions = match era {
        Era::Legacy => subscribed_sessions(target, stats, streams).await?,
        Era::Modern => vec![None; streams],
    };
    let pid: Option<u32> = std::env::var("SERVER_PID")
        .ok()
        .and_then(|p| p.parse().ok());
    let rss_before = pid.map(rss_kb).transpose()?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Instant>();
    let (ready_tx, mut ready_rx) = mpsc::unbounded_channel::<()>();
    let shared = match wire {
        Wire::H1 => Vec::new(),
        Wire::H2 { per_conn } => {
            let mut senders = Vec::new();
            for _ in 0..streams.div_ceil(per_conn.max(1)) {
                senders.push(h2_connection(target).await?);
            }
            senders
        }
    };
    for (i, session) in sessions.into_iter().enumerate() {
        let (target, tx, ready) = (Arc::clone(target), tx.clone(), ready_tx.clone());
        let via = match (wire, shared.get(i * shared.len() / streams.max(1))) {
            (Wire::H2 { .. }, Some(sender)) => Via::H2(sender.clone()),
            _ => Via::H1,
        };
        tokio::spawn(async move {
            if let Err(e) = follow(&target, via, session, tx, ready).await {
                eprintln!("stream: {e}");
            }
        });
    }
    drop(ready_tx);
    for _ in 0..streams {
        tokio::time::timeout(Duration::from_secs(60), ready_rx.recv())
            .await
            .map_err(|_| "the streams did not all open within 60 s")?
            .ok_or("a stream failed to open")?;
    }
    let rss_after = pid.map(rss_kb).transpose()?;
    #[allow(clippy::cast_precision_loss)]
    let kb_per_stream = match (rss_before, rss_after) {
        (Some(a), Some(b)) => (b - a) / streams as f64,
        _ => f64::NAN,
    };
    let mut control = Conn::open(Arc::clone(target)).await?;
    let mut samples = Vec::with_capacity(rounds);
    let mut deliveries = 0;
    let ticks_before = pid.map(cpu_ticks).transpose()?;
    for _ in 0..rounds {
        let t0 = Instant::now();
        control.touch(stats, URI).await?;
        let mut last = t0;
        for _ in 0..streams {
            let at = tokio::time::timeout(Duration::from_secs(30), rx.recv())
                .await
                .map_err(|_| format!("only {deliveries} deliveries within 30 s"))?
                .ok_or("every stream ended")?;
            last = last.max(at);
            deliveries += 1;
        }
        samples.push(u64::try_from((last - t0).as_micros()).unwrap_or(u64::MAX));
        // Let the streams settle before the next round.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let ticks_after = pid.map(cpu_ticks).transpose()?;
    #[allow(clippy::cast_precision_loss)]
    let cpu_us_per_delivery = match (ticks_before, ticks_after) {
        (Some(a), Some(b)) if deliveries > 0 => {
            (b - a) as f64 * 1e6 / clk_tck() / deliveries as f64
        }
        _ => f64::NAN,
    };
    Ok(Measured {
        samples,
        kb_per_stream,
        deliveries,
        cpu_us_per_delivery,
    })
}

/// An HTTP/2 connection (prior knowledge) that many streams share.
async fn h2_connection(
    target: &Target,
) -> Result<hyper::client::conn::http2::SendRequest<Full<Bytes>>, String> {
    let tcp = TcpStream::connect(target.addr())
        .await
        .map_err(|e| format!("connect: {e}"))?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    let (sender, conn) = hyper::client::conn::http2::handshake(
        hyper_util::rt::TokioExecutor::new(),
        TokioIo::new(tcp),
    )
    .await
    .map_err(|e| format!("h2 handshake: {e}"))?;
    tokio::spawn(conn);
    Ok(sender)
}

/// `streams` legacy sessions, each subscribed to [`URI`].
async fn subscribed_sessions(
    target: &Arc<Target>,
    stats: &Arc<Stats>,
    streams: usize,
) -> Result<Vec<Option<String>>, String> {
    let mut tasks = Vec::new();
    for i in 0..SETUP_CONNS {
        let (target, stats) = (Arc::clone(target), Arc::clone(stats));
        let count = streams / SETUP_CONNS + usize::from(i < streams % SETUP_CONNS);
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::open(target).await?;
            let mut ids = Vec::with_capacity(count);
            for _ in 0..count {
                let session = conn.open_session(&stats).await?;
                let sid = session.to_str().map_err(|e| e.to_string())?.to_owned();
                conn.subscribe(&stats, &sid, URI).await?;
                ids.push(Some(sid));
            }
            Ok::<_, String>(ids)
        }));
    }
    let mut all = Vec::with_capacity(streams);
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())??);
    }
    Ok(all)
}

/// Opens one stream (a legacy GET stream, or a listen when `session` is `None`), reports it
/// ready once the server's first event arrives, then reports every update's arrival.
async fn follow(
    target: &Target,
    via: Via,
    session: Option<String>,
    updates: mpsc::UnboundedSender<Instant>,
    ready: mpsc::UnboundedSender<()>,
) -> Result<(), String> {
    let req = Request::builder()
        .uri(target.path())
        .header(HOST, target.host());
    let req = match &session {
        Some(sid) => req
            .method(Method::GET)
            .header(ACCEPT, "text/event-stream")
            .header("mcp-session-id", sid.as_str())
            .header("mcp-protocol-version", crate::load::LEGACY)
            .body(Full::new(Bytes::new())),
        None => req
            .method(Method::POST)
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "subscriptions/listen")
            .body(Full::new(Bytes::from(format!(
                r#"{{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{{"notifications":{{"resourceSubscriptions":["{URI}"]}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            )))),
    }
    .map_err(|e| e.to_string())?;
    let resp = match via {
        Via::H1 => {
            let tcp = TcpStream::connect(target.addr())
                .await
                .map_err(|e| format!("connect: {e}"))?;
            tcp.set_nodelay(true).map_err(|e| e.to_string())?;
            let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
                .await
                .map_err(|e| format!("handshake: {e}"))?;
            tokio::spawn(conn);
            sender.send_request(req).await
        }
        Via::H2(mut sender) => {
            sender
                .ready()
                .await
                .map_err(|e| format!("connection: {e}"))?;
            sender.send_request(req).await
        }
    }
    .map_err(|e| format!("request: {e}"))?;
    if resp.status() != StatusCode::OK {
        return Err(format!("stream: status {}", resp.status()));
    }
    let mut body = resp.into_body();
    let mut buffer: Vec<u8> = Vec::new();
    let mut opened = false;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("stream: {e}"))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let at = Instant::now();
        buffer.extend_from_slice(&data);
        // Whole events only: an event may span frames.
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = buffer.drain(..end + 2).collect();
            if !opened {
                // The priming event (GET) or the acknowledgement (listen).
                opened = true;
                let _ = ready.send(());
            } else if event.windows(UPDATED.len()).any(|w| w == UPDATED) {
                let _ = updates.send(at);
            }
        }
    }
    Err("the server ended the stream".into())
}
