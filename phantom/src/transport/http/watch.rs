//! The connections phantom accepts itself: the header timeout of each HTTP/1 connection and the
//! graceful shutdown of all of them, kept in one slot per connection that a sweeper looks at.
//!
//! hyper's header timeout, given tokio's timer, makes a boxed tokio `Sleep` each time a
//! kept-alive connection starts waiting for a request head, registers it in tokio's timer wheel
//! and takes it out again when the head arrives: about 1 k instructions per request, for a
//! timeout that almost never fires. Here each connection has a [`Slot`] holding the deadline of
//! its current wait (an atomic store when the wait starts, another when the head arrives) and a
//! sweeper task compares the deadlines with the clock a few times per timeout, waking the
//! connection whose deadline has passed, which then ends and is closed, as hyper closes one whose
//! sleep elapsed. The same slots replace hyper-util's graceful watcher, which polled a tokio `Notified`
//! each time a connection's task ran: shutting down sets a flag in every slot and wakes its
//! connection, which then asks hyper to finish gracefully.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::task::AtomicWaker;
use hyper_util::server::graceful::GracefulConnection;

/// Every connection phantom serves, for the sweeper and for the shutdown.
pub(super) struct Watch {
    /// Deadlines are kept as nanoseconds since this instant (0: no wait running).
    epoch: Instant,
    slots: Mutex<Vec<Arc<Slot>>>,
    /// Connections still being served; the shutdown waits for none.
    live: AtomicUsize,
    ended: tokio::sync::Notify,
    stopping: AtomicBool,
}

/// One connection's state, shared by its task, its timer and the sweeper.
#[derive(Default)]
struct Slot {
    /// The deadline of the head being waited for, or 0.
    deadline: AtomicU64,
    /// The deadline the sweeper found passed.
    fired: AtomicU64,
    /// The connection's task, registered when it is first polled.
    task: AtomicWaker,
    /// Set by the shutdown: the connection finishes what it is answering and closes.
    stop: AtomicBool,
}

impl Watch {
    pub(super) fn new() -> Arc<Self> {
        Arc::new(Self {
            epoch: Instant::now(),
            slots: Mutex::new(Vec::new()),
            live: AtomicUsize::new(0),
            ended: tokio::sync::Notify::new(),
            stopping: AtomicBool::new(false),
        })
    }

    /// A connection just accepted: counted until it ends (the shutdown waits for it), with a
    /// slot the shutdown can reach.
    pub(super) fn connection(self: &Arc<Self>) -> Served {
        self.live.fetch_add(1, Ordering::AcqRel);
        let slot = Arc::new(Slot::default());
        if self.stopping.load(Ordering::Acquire) {
            slot.stop.store(true, Ordering::Release);
        }
        self.slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&slot));
        Served {
            slot,
            watch: Arc::clone(self),
        }
    }

    /// Wakes each connection whose head deadline has passed, and forgets ended connections.
    /// Runs until the watch is dropped by everything else.
    pub(super) async fn sweep(self: Arc<Self>, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            if Arc::strong_count(&self) == 1 {
                return;
            }
            let now = nanos_since(self.epoch, Instant::now());
            let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
            slots.retain(|slot| {
                let deadline = slot.deadline.load(Ordering::Acquire);
                if deadline != 0 && deadline <= now {
                    slot.fired.store(deadline, Ordering::Release);
                    slot.task.wake();
                }
                Arc::strong_count(slot) > 1
            });
        }
    }

    /// Asks every connection to finish gracefully (hyper answers what it is answering, then
    /// closes; an idle kept-alive connection closes at once) and waits until all have ended.
    pub(super) async fn shutdown(&self) {
        self.stopping.store(true, Ordering::Release);
        for slot in self
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            slot.stop.store(true, Ordering::Release);
            slot.task.wake();
        }
        loop {
            let ended = self.ended.notified();
            if self.live.load(Ordering::Acquire) == 0 {
                return;
            }
            ended.await;
        }
    }
}

/// How often the sweeper looks, for a header timeout of `timeout`: an eighth of it, between 10 ms
/// and one second (a head that is late is closed at most that much after its deadline).
pub(super) fn sweep_every(timeout: Duration) -> Duration {
    (timeout / 8).clamp(Duration::from_millis(10), Duration::from_secs(1))
}

fn nanos_since(epoch: Instant, at: Instant) -> u64 {
    // 0 stands for "no deadline": the earliest deadline is one nanosecond after the epoch.
    u64::try_from(at.saturating_duration_since(epoch).as_nanos()).map_or(u64::MAX, |n| n.max(1))
}

/// A connection accepted and still open.
pub(super) struct Served {
    slot: Arc<Slot>,
    watch: Arc<Watch>,
}

impl Served {
    /// What the connection's service tells when a request head has arrived.
    pub(super) fn head_arrived(&self) -> HeadArrived {
        HeadArrived(Arc::clone(&self.slot))
    }

    /// The timer for the connection's HTTP/1 server.
    pub(super) fn head_timer(&self) -> HeadTimer {
        HeadTimer {
            slot: Arc::clone(&self.slot),
            epoch: self.watch.epoch,
        }
    }

    /// `conn`, served under the watch: the returned future is the connection's whole life.
    pub(super) fn serve<C: GracefulConnection>(self, conn: C) -> Watched<C> {
        Watched {
            conn,
            served: self,
            polled: false,
            stopped: false,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if self.watch.live.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.watch.ended.notify_waiters();
        }
    }
}

pin_project_lite::pin_project! {
    /// A connection being served: registers its task in its slot, and asks hyper to finish
    /// gracefully once the shutdown has set the slot's flag.
    pub(super) struct Watched<C> {
        #[pin]
        conn: C,
        served: Served,
        polled: bool,
        stopped: bool,
    }
}

impl<C: GracefulConnection> Future for Watched<C> {
    type Output = Result<(), C::Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let slot = &this.served.slot;
        if !*this.polled {
            // A task's waker wakes that task for as long as it lives: registered once.
            *this.polled = true;
            slot.task.register(cx.waker());
        }
        let fired = slot.fired.load(Ordering::Acquire);
        if fired != 0 && fired == slot.deadline.load(Ordering::Acquire) {
            // A head was awaited past its deadline: the connection is dropped, and closed.
            return Poll::Ready(Ok(()));
        }
        if !*this.stopped && slot.stop.load(Ordering::Acquire) {
            *this.stopped = true;
            this.conn.as_mut().graceful_shutdown();
        }
        this.conn.poll(cx)
    }
}

/// The timer of one HTTP/1 connection: hyper asks it for a sleep each time the connection starts
/// waiting for a request head, and drops that sleep when the head has arrived.
///
/// The wait's state is the slot's, not the sleep's: hyper boxes every sleep and drops it with
/// each head, and a sleep with no state of its own boxes without allocating. The deadline goes
/// into the slot when hyper asks for the sleep; the head's arrival takes it out again
/// ([`HeadArrived`], called as hyper hands the request to the service); and a deadline the
/// sweeper found passed ends the connection ([`Watched`]), as hyper ends one whose sleep
/// elapsed.
pub(super) struct HeadTimer {
    slot: Arc<Slot>,
    epoch: Instant,
}

impl hyper::rt::Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn hyper::rt::Sleep>> {
        self.slot
            .deadline
            .store(nanos_since(self.epoch, deadline), Ordering::Release);
        Box::pin(HeadSleep)
    }

    fn reset(&self, _: &mut Pin<Box<dyn hyper::rt::Sleep>>, new_deadline: Instant) {
        self.slot
            .deadline
            .store(nanos_since(self.epoch, new_deadline), Ordering::Release);
    }
}

/// A wait for a request head, as hyper holds it: never over by itself (the connection ends
/// instead, see [`HeadTimer`]).
struct HeadSleep;

impl Future for HeadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        Poll::Pending
    }
}

impl hyper::rt::Sleep for HeadSleep {}

/// Told by the connection's service that a request head has arrived: the wait is over.
#[derive(Clone)]
pub(super) struct HeadArrived(Arc<Slot>);

impl HeadArrived {
    pub(super) fn now(&self) {
        self.0.deadline.store(0, Ordering::Release);
    }
}
