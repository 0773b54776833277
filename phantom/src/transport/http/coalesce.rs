//! An HTTP/2 connection's writes of stream data, put off by one turn of the scheduler so that
//! the frames of many streams leave in one write.
//!
//! hyper runs each HTTP/2 stream in a task of its own, and h2 writes a connection's frames from
//! the connection's task. When one change reaches many streams of a connection (a resource
//! update heard by a hundred listens), each stream's task queues its frame and wakes the
//! connection's task, which tokio runs next (the woken task takes the worker's LIFO slot) and
//! which writes that one frame: a `writev` per stream and per change, 10 000 system calls for a
//! change heard by 10 000 listens on 100 connections. [`Coalesce`] answers the first write of a
//! burst with `Pending` and wakes its own task, which tokio then puts at the back of the run
//! queue; the streams woken before it queue their frames meanwhile, and h2 writes them all
//! together when the connection's turn comes again. Every later write of the burst goes straight
//! through, so a connection waits at most one turn of the queue per burst; an idle runtime runs
//! it again at once.
//!
//! Only a burst that starts with a `DATA` frame waits: what streams send after their answer has
//! begun (events on a held stream). A burst that starts with a `HEADERS` frame (an answer, which
//! its client is waiting for, usually with its body in the same burst), `SETTINGS`, `PING` and
//! the like goes out at once. This also keeps a burst of answers from piling up in h2's frame
//! queue, which keeps the room it grew to for the connection's life (a `HEADERS` frame takes
//! about 0.3 KB there). A burst starts at a frame's start: h2 flushes only once its buffer is
//! all written.
//!
//! HTTP/1.1 connections are not wrapped: each carries one stream at a time, so there is nothing
//! to put together.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::rt::{Read, ReadBufCursor, Write};

/// The type of an HTTP/2 `DATA` frame, the fourth byte of its 9-byte header (RFC 9113, 4.1).
const DATA: u8 = 0;

/// An I/O whose first write after each flush waits one turn when it starts with a `DATA` frame
/// (see the module's comment).
pub(super) struct Coalesce<T> {
    io: T,
    /// This burst's first write was looked at (and put off if it was data): the rest go through.
    looked: bool,
}

impl<T> Coalesce<T> {
    pub(super) fn new(io: T) -> Self {
        Self { io, looked: false }
    }

    /// `Pending` (with the task woken) for the first write of a burst if it starts with a
    /// `DATA` frame; `Ready` otherwise.
    fn wait_once(&mut self, cx: &mut Context<'_>, first: &[u8]) -> Poll<()> {
        if self.looked {
            return Poll::Ready(());
        }
        self.looked = true;
        if first.get(3) == Some(&DATA) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(())
    }
}

impl<T: Read + Unpin> Read for Coalesce<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for Coalesce<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        std::task::ready!(self.wait_once(cx, buf));
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs
            .iter()
            .find(|b| !b.is_empty())
            .map_or(&[][..], |b| &b[..]);
        std::task::ready!(self.wait_once(cx, first));
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // The burst is over once h2 flushes: the next write starts a frame and is looked at.
        self.looked = false;
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    use super::*;

    /// Records what reaches the socket.
    #[derive(Default)]
    struct Socket {
        writes: Vec<Vec<u8>>,
        flushes: usize,
    }

    impl Write for Socket {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.writes.push(buf.to_vec());
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.flushes += 1;
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A frame header (RFC 9113, 4.1) of `kind` for stream 1, and a payload.
    fn frame(kind: u8) -> Vec<u8> {
        vec![0, 0, 2, kind, 0, 0, 0, 0, 1, b'h', b'i']
    }

    #[test]
    fn a_burst_of_data_waits_one_turn_and_anything_else_goes_at_once() {
        let wakes = Arc::new(Wakes::default());
        let waker = std::task::Waker::from(Arc::clone(&wakes));
        let mut cx = Context::from_waker(&waker);
        let mut io = Coalesce::new(Socket::default());
        let mut io = Pin::new(&mut io);

        // Data: put off once, with the task woken to come back; then written, and the rest of
        // the burst (whatever it starts with) goes straight through.
        let data = frame(DATA);
        assert!(io.as_mut().poll_write(&mut cx, &data).is_pending());
        assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
        assert!(io.io.writes.is_empty());
        assert!(matches!(
            io.as_mut().poll_write(&mut cx, &data),
            Poll::Ready(Ok(11))
        ));
        assert!(matches!(
            io.as_mut().poll_write(&mut cx, &data[5..]),
            Poll::Ready(Ok(6))
        ));
        assert!(io.as_mut().poll_flush(&mut cx).is_ready());
        assert_eq!(io.io.writes.len(), 2);

        // A burst that starts with an answer's HEADERS (type 1), or SETTINGS (type 4): at once.
        for kind in [1, 4] {
            let head = frame(kind);
            assert!(matches!(
                io.as_mut().poll_write(&mut cx, &head),
                Poll::Ready(Ok(11))
            ));
            assert!(io.as_mut().poll_flush(&mut cx).is_ready());
        }
        assert_eq!(wakes.0.load(Ordering::SeqCst), 1);
        assert_eq!(io.io.writes.len(), 4);

        // After the flush, the next burst of data waits its turn again, vectored too.
        let slices = [io::IoSlice::new(&[]), io::IoSlice::new(&data)];
        assert!(
            io.as_mut()
                .poll_write_vectored(&mut cx, &slices)
                .is_pending()
        );
        assert_eq!(wakes.0.load(Ordering::SeqCst), 2);
        assert!(io.as_mut().poll_write_vectored(&mut cx, &slices).is_ready());
        assert_eq!(io.io.writes.len(), 5);
        assert_eq!(io.io.flushes, 3);
    }
}
