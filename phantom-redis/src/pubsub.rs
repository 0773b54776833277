//! One pub/sub connection kept open in the background: it subscribes to its channels, hands each
//! message on, and after a lost connection reconnects with backoff and reports the gap (messages
//! published meanwhile are lost: Redis pub/sub does not keep them).

use std::time::Duration;

use futures_util::StreamExt as _;
use tokio::sync::oneshot;

/// How often an idle subscription checks its connection with `PING`.
const PING_EVERY: Duration = Duration::from_secs(5);

/// What a listener does with what it hears.
pub(crate) trait Handler: Send + Sync + 'static {
    /// A message on one of the channels.
    fn message(&self, channel: &str, payload: &[u8]);
    /// The connection was lost and is back: messages may have been missed.
    fn gap(&self);
}

/// Subscribes to `channels` through `client` until the handler is dropped by everyone else (the
/// task holds a weak reference). Resolves once the first subscription is in place, or fails with
/// the first connection's error.
pub(crate) async fn listen<H: Handler>(
    client: redis::Client,
    channels: Vec<String>,
    handler: &std::sync::Arc<H>,
) -> redis::RedisResult<()> {
    let (ready_tx, ready_rx) = oneshot::channel();
    let weak = std::sync::Arc::downgrade(handler);
    tokio::spawn(async move {
        let mut ready = Some(ready_tx);
        let mut backoff = Duration::from_millis(50);
        let mut down_logged = false;
        loop {
            match subscribe(&client, &channels).await {
                Ok(pubsub) => {
                    if let Some(tx) = ready.take() {
                        let _ = tx.send(Ok(()));
                    } else {
                        tracing::info!(?channels, "redis pub/sub is back; resubscribed");
                        let Some(handler) = weak.upgrade() else {
                            return;
                        };
                        handler.gap();
                    }
                    down_logged = false;
                    backoff = Duration::from_millis(50);
                    if !pump(pubsub, &weak).await {
                        return;
                    }
                }
                Err(e) => {
                    if let Some(tx) = ready.take() {
                        let _ = tx.send(Err(e));
                        return;
                    }
                    if !down_logged {
                        tracing::warn!(error = %e, ?channels, "redis pub/sub lost; reconnecting with backoff");
                        down_logged = true;
                    }
                }
            }
            if weak.strong_count() == 0 {
                return;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(2));
        }
    });
    ready_rx.await.unwrap_or_else(|_| {
        Err(redis::RedisError::from((
            redis::ErrorKind::Io,
            "the listener ended",
        )))
    })
}

async fn subscribe(
    client: &redis::Client,
    channels: &[String],
) -> redis::RedisResult<redis::aio::PubSub> {
    let mut pubsub = tokio::time::timeout(crate::TIMEOUT, client.get_async_pubsub())
        .await
        .map_err(|_| redis::RedisError::from((redis::ErrorKind::Io, "timed out connecting")))??;
    for channel in channels {
        pubsub.subscribe(channel).await?;
    }
    Ok(pubsub)
}

/// Hands messages on until the connection is lost (`true`) or nobody holds the handler
/// (`false`).
async fn pump<H: Handler>(pubsub: redis::aio::PubSub, weak: &std::sync::Weak<H>) -> bool {
    let (mut sink, mut stream) = pubsub.split();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
    loop {
        tokio::select! {
            msg = stream.next() => {
                let Some(msg) = msg else { return true };
                let Some(handler) = weak.upgrade() else { return false };
                handler.message(msg.get_channel_name(), msg.get_payload_bytes());
            }
            _ = tick.tick() => {
                if weak.strong_count() == 0 {
                    return false;
                }
                // A subscribed RESP2 connection answers `PING` with `["pong", ""]`, not
                // `PONG`: any answer will do (read as a string, it failed, and the connection
                // was dropped and resubscribed every few seconds, losing what was published
                // meanwhile).
                let pong = tokio::time::timeout(crate::TIMEOUT, sink.ping::<redis::Value>()).await;
                if !matches!(pong, Ok(Ok(_))) {
                    return true;
                }
            }
        }
    }
}
