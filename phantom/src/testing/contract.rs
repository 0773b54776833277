//! Contract suites for the store seams: what every backend promises, checked the same way for the
//! in-memory stores, `phantom-redis`, and a third party's Postgres or NATS backend. One suite per
//! seam: [`session_store`], [`event_store`], [`reply_bus`], [`notification_bus`],
//! [`subscription_store`], [`task_store`].
//!
//! Each suite takes a function that opens a new handle onto one and the same backend (for the
//! in-memory store, clones of one `Arc`; for a networked one, a new connection), so that what one
//! node writes is checked through another. A broken promise panics with a message that names it.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::sync::Arc;
//! use phantom::store::MemorySessionStore;
//!
//! let store = Arc::new(MemorySessionStore::new());
//! phantom::testing::contract::session_store(Arc::clone(&store), store).await;
//! # }
//! ```

use std::time::Duration;

use serde_json::json;

use crate::protocol::{Implementation, LogLevel};
use crate::store::{SessionRecord, SessionStore, StoreErrorKind};

/// A session id no other run of the suite uses.
fn fresh_id() -> String {
    format!("contract-{}", crate::kernel::random_id::<16>())
}

/// The [`SessionStore`] contract: create once, get and touch restart the idle timer, updates are
/// compare-and-set with a revision the store issues, expiry after the TTL, delete, and all of it
/// seen alike through two handles.
///
/// Takes about two seconds (it waits for records to expire).
pub async fn session_store<S: SessionStore>(a: S, b: S) {
    const TTL: Duration = Duration::from_secs(30);

    // Create, then read through the other handle.
    let id = fresh_id();
    let mut record = SessionRecord::new(id.clone(), "2025-11-25").with_principal("ada");
    record.client_info = Some(Implementation {
        name: "contract".into(),
        version: "1.0.0".into(),
        ..Implementation::default()
    });
    record.client_capabilities = json!({"elicitation": {}, "sampling": {}});
    a.create(&record, TTL).await.expect("create a new session");
    let read = b
        .get(&id, TTL)
        .await
        .expect("get")
        .expect("a created session is found through another handle");
    assert_eq!(read.revision, 1, "a created record is at revision 1");
    assert_eq!(
        SessionRecord {
            revision: record.revision,
            ..read.clone()
        },
        record,
        "the record reads back as it was created"
    );

    // Create is once.
    let again = b.create(&record, TTL).await;
    assert_eq!(
        again.map_err(|e| e.kind()),
        Err(StoreErrorKind::Conflict),
        "creating an existing id is a conflict"
    );

    // Touch says the revision.
    assert_eq!(b.touch(&id, TTL).await.expect("touch"), Some(1));
    assert_eq!(
        a.touch(&fresh_id(), TTL).await.expect("touch unknown"),
        None,
        "touching an unknown id finds nothing"
    );
    assert!(
        a.get(&fresh_id(), TTL)
            .await
            .expect("get unknown")
            .is_none(),
        "getting an unknown id finds nothing"
    );

    // Compare-and-set: one of two writers at the same revision wins.
    let mut first = read.clone();
    first.log_level = Some(LogLevel::Debug);
    let mut second = read.clone();
    second.log_level = Some(LogLevel::Error);
    let won = a.update(&first, TTL).await.expect("the first update wins");
    assert_eq!(won, 2, "an update moves the revision by one");
    let lost = b.update(&second, TTL).await;
    assert_eq!(
        lost.map_err(|e| e.kind()),
        Err(StoreErrorKind::Conflict),
        "an update at a stale revision is a conflict"
    );
    let now = b.get(&id, TTL).await.expect("get").expect("still there");
    assert_eq!(
        now.log_level,
        Some(LogLevel::Debug),
        "the winner's write stands"
    );
    assert_eq!(now.revision, 2);
    assert_eq!(a.touch(&id, TTL).await.expect("touch"), Some(2));

    // Updating a record that is gone.
    let mut ghost = SessionRecord::new(fresh_id(), "2025-11-25");
    ghost.revision = 1;
    assert_eq!(
        a.update(&ghost, TTL).await.map_err(|e| e.kind()),
        Err(StoreErrorKind::NotFound),
        "updating an unknown id is not found"
    );

    // Delete, seen through the other handle; deleting twice says it was gone.
    assert!(
        b.delete(&id).await.expect("delete"),
        "delete finds the record"
    );
    assert!(
        a.get(&id, TTL).await.expect("get").is_none(),
        "a deleted record is gone"
    );
    assert_eq!(a.touch(&id, TTL).await.expect("touch"), None);
    assert!(
        !a.delete(&id).await.expect("delete"),
        "deleting twice finds nothing"
    );
    assert_eq!(
        a.update(&now, TTL).await.map_err(|e| e.kind()),
        Err(StoreErrorKind::NotFound),
        "updating a deleted record is not found"
    );
    a.create(&record, TTL)
        .await
        .expect("a deleted id may be created again");
    a.delete(&record.id).await.expect("delete");

    // Ids are per record: two sessions do not see each other's updates.
    let one = SessionRecord::new(fresh_id(), "2025-06-18");
    let two = SessionRecord::new(fresh_id(), "2025-11-25");
    a.create(&one, TTL).await.expect("create one");
    b.create(&two, TTL).await.expect("create two");
    let mut one_read = b.get(&one.id, TTL).await.expect("get").expect("one");
    one_read.log_level = Some(LogLevel::Info);
    b.update(&one_read, TTL).await.expect("update one");
    let two_read = a.get(&two.id, TTL).await.expect("get").expect("two");
    assert_eq!(
        two_read.log_level, None,
        "an update of one session leaves another alone"
    );
    assert_eq!(two_read.protocol_version, "2025-11-25");

    // Expiry: a record not used for its TTL is gone; touching and getting restart the timer.
    let short = Duration::from_millis(600);
    let idle = SessionRecord::new(fresh_id(), "2025-11-25");
    let used = SessionRecord::new(fresh_id(), "2025-11-25");
    a.create(&idle, short).await.expect("create idle");
    a.create(&used, short).await.expect("create used");
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            b.touch(&used.id, short).await.expect("touch").is_some(),
            "a record touched within its TTL lives on"
        );
    }
    assert!(
        b.get(&idle.id, short).await.expect("get").is_none(),
        "a record idle past its TTL has expired"
    );
    assert_eq!(b.touch(&idle.id, short).await.expect("touch"), None);
    let mut late = SessionRecord::new(idle.id.clone(), "2025-11-25");
    late.revision = 1;
    assert_eq!(
        a.update(&late, short).await.map_err(|e| e.kind()),
        Err(StoreErrorKind::NotFound),
        "an expired record cannot be updated"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        a.get(&used.id, short).await.expect("get").is_some(),
        "a record used within its TTL lives on"
    );

    // A zero TTL is refused rather than creating a record that is gone at once.
    let zero = a
        .create(
            &SessionRecord::new(fresh_id(), "2025-11-25"),
            Duration::ZERO,
        )
        .await;
    assert_eq!(
        zero.map_err(|e| e.kind()),
        Err(StoreErrorKind::Other),
        "a zero TTL is refused"
    );

    for id in [&one.id, &two.id, &used.id] {
        a.delete(id).await.expect("clean up");
    }
}

/// The [`ReplyBus`](crate::store::ReplyBus) contract: an answer delivered through either handle
/// reaches the handler waiting on the other, once; `deliver` says exactly whether a handler
/// waited (not for an unknown id, another session's request, an answer already given, or a wait
/// that was forgotten).
pub async fn reply_bus<B: crate::store::ReplyBus>(a: B, b: B) {
    use crate::store::ClientAnswer;
    const STEP: Duration = Duration::from_secs(5);
    let session = fresh_id();
    let other = fresh_id();

    // Waiting on one handle, answered through the other: delivered, once.
    let waiter = a.expect(&session, "r1").await.expect("expect");
    let answer = ClientAnswer::Result(r#"{"action":"accept"}"#.into());
    assert!(
        b.deliver(&session, "r1", answer.clone())
            .await
            .expect("deliver"),
        "an answer to a waiting handler is delivered through the other handle"
    );
    let got = tokio::time::timeout(STEP, waiter)
        .await
        .expect("the answer arrives within 5 s")
        .expect("the answer, not a dropped wait");
    assert_eq!(got, answer, "the answer arrives as it was given");
    assert!(
        !a.deliver(&session, "r1", answer.clone())
            .await
            .expect("deliver"),
        "a second answer to the same request is not delivered"
    );
    assert!(
        !b.deliver(&session, "r1", answer.clone())
            .await
            .expect("deliver"),
        "nor through the other handle"
    );

    // Errors travel too, and the same handle works.
    let waiter = b.expect(&session, "r2").await.expect("expect");
    let error = ClientAnswer::Error(r#"{"code":-1,"message":"no"}"#.into());
    assert!(
        b.deliver(&session, "r2", error.clone())
            .await
            .expect("deliver")
    );
    let got = tokio::time::timeout(STEP, waiter).await.expect("in time");
    assert_eq!(got.expect("an answer"), error);

    // Unknown ids and other sessions' requests are not delivered, and leave the wait alone.
    let mut waiter = a.expect(&session, "r3").await.expect("expect");
    assert!(
        !b.deliver(&session, "no-such-request", answer.clone())
            .await
            .expect("deliver"),
        "an unknown id is not delivered"
    );
    assert!(
        !b.deliver(&other, "r3", answer.clone())
            .await
            .expect("deliver"),
        "a request of another session is not delivered"
    );
    assert!(
        matches!(
            waiter.try_recv(),
            Err(tokio::sync::oneshot::error::TryRecvError::Empty)
        ),
        "the handler still waits"
    );
    assert!(
        b.deliver(&session, "r3", answer.clone())
            .await
            .expect("deliver")
    );
    let got = tokio::time::timeout(STEP, waiter).await.expect("in time");
    assert_eq!(got.expect("an answer"), answer);

    // A forgotten wait is not delivered to.
    let waiter = a.expect(&session, "r4").await.expect("expect");
    a.forget(&session, "r4").await;
    drop(waiter);
    assert!(
        !b.deliver(&session, "r4", answer.clone())
            .await
            .expect("deliver"),
        "a wait the handler gave up is not delivered to"
    );
}

/// The [`NotificationBus`](crate::store::NotificationBus) contract: a change published through
/// either handle reaches subscribers of both, once each, in the order one publisher published.
pub async fn notification_bus<B: crate::store::NotificationBus>(a: B, b: B) {
    use crate::store::{BusEvent, Change};
    use futures_util::StreamExt as _;
    const STEP: Duration = Duration::from_secs(5);
    let mut on_a = a.subscribe();
    let mut on_b = b.subscribe();
    let marker = fresh_id();
    let sent: Vec<Change> = (0..5)
        .map(|n| Change::ResourcesUpdated {
            uris: vec![format!("contract://{marker}/{n}")],
        })
        .collect();
    for change in &sent {
        a.publish(change).await.expect("publish");
    }
    for (name, stream) in [
        ("the publishing handle", &mut on_a),
        ("the other handle", &mut on_b),
    ] {
        let mut heard = Vec::new();
        while heard.len() < sent.len() {
            match tokio::time::timeout(STEP, stream.next()).await {
                Ok(Some(BusEvent::Change(change))) => heard.push(change),
                Ok(Some(BusEvent::Gap)) => panic!("a gap on a healthy bus, on {name}"),
                Ok(None) => panic!("the subscription on {name} ended"),
                Err(_) => panic!(
                    "{name}'s subscriber heard {} of {} changes within 5 s",
                    heard.len(),
                    sent.len()
                ),
            }
        }
        assert_eq!(heard, sent, "{name} hears every change once, in order");
    }
    // Once each: nothing more comes.
    let cancelled = Change::RequestCancelled {
        session: marker.clone(),
        request_id: "7".into(),
    };
    b.publish(&cancelled).await.expect("publish");
    for (name, stream) in [
        ("the first handle", &mut on_a),
        ("the second handle", &mut on_b),
    ] {
        let next = tokio::time::timeout(STEP, stream.next()).await;
        assert!(
            matches!(&next, Ok(Some(BusEvent::Change(c))) if *c == cancelled),
            "{name} hears the next change, not a repeat: {next:?}"
        );
    }
}

/// The [`SubscriptionStore`](crate::store::SubscriptionStore) contract: what one handle adds the
/// other sees, per session, in the order asked; removing says whether it was there; forgetting
/// empties the session alone.
pub async fn subscription_store<S: crate::store::SubscriptionStore>(a: S, b: S) {
    let one = fresh_id();
    let two = fresh_id();
    a.add(&one, "contract://a").await.expect("add");
    a.add(&one, "contract://b").await.expect("add");
    a.add(&one, "contract://b")
        .await
        .expect("adding twice is no change");
    b.add(&two, "contract://a").await.expect("add");
    let asked = [
        "contract://b".to_owned(),
        "contract://c".to_owned(),
        "contract://a".to_owned(),
    ];
    assert_eq!(
        b.subscribed(&one, &asked).await.expect("subscribed"),
        ["contract://b", "contract://a"],
        "the other handle sees the subscriptions, in the order asked"
    );
    assert!(
        b.subscribed(&fresh_id(), &asked)
            .await
            .expect("subscribed")
            .is_empty(),
        "an unknown session has none"
    );
    assert!(
        a.subscribed(&one, &[])
            .await
            .expect("subscribed")
            .is_empty(),
        "asking about nothing finds nothing"
    );
    assert!(
        b.remove(&one, "contract://b").await.expect("remove"),
        "removing finds it"
    );
    assert!(
        !a.remove(&one, "contract://b").await.expect("remove"),
        "removing twice does not"
    );
    assert_eq!(
        a.subscribed(&one, &asked).await.expect("subscribed"),
        ["contract://a"]
    );
    b.forget(&one).await.expect("forget");
    assert!(
        a.subscribed(&one, &asked)
            .await
            .expect("subscribed")
            .is_empty()
    );
    assert_eq!(
        a.subscribed(&two, &asked).await.expect("subscribed"),
        ["contract://a"],
        "forgetting one session leaves another alone"
    );
    a.forget(&two).await.expect("clean up");
}

/// The [`EventStore`](crate::store::EventStore) contract: ids issued in a session through two
/// handles never repeat; a replay names the stream and starts at the named event; other streams
/// and sessions stay apart; `follow` hears what either handle appends next; `forget` drops a
/// session. (Ids need not be unique across sessions: a client presents one with its session.)
pub async fn event_store<E: crate::store::EventStore>(a: E, b: E) {
    use futures_util::StreamExt as _;
    const STEP: Duration = Duration::from_secs(5);
    let session = fresh_id();
    let other = fresh_id();

    // Ids are unique however the appends interleave.
    let mut ids = Vec::new();
    for n in 0..6 {
        let (store, stream) = match n % 3 {
            0 => (&a, "p1"),
            1 => (&b, "p1"),
            _ => (&b, "g"),
        };
        let id = store
            .append(&session, stream, &format!("{{\"n\":{n}}}"))
            .await
            .expect("append");
        assert!(!ids.contains(&id), "the id {id} was issued twice");
        ids.push(id);
    }
    let in_other = a.append(&other, "p1", "{}").await.expect("append");

    // Replay from the first event of p1, through the other handle.
    let (stream, events) = b
        .replay(&session, &ids[0])
        .await
        .expect("replay")
        .expect("a stored id replays");
    assert_eq!(stream, "p1", "the replay names the event's stream");
    let got: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
    let want: Vec<&str> = [0, 1, 3, 4].iter().map(|&i| ids[i].as_str()).collect();
    assert_eq!(
        got, want,
        "the named event first, then the later ones of its stream only"
    );
    assert_eq!(
        events[1].data, r#"{"n":1}"#,
        "the data comes back as appended"
    );
    let (stream, events) = a
        .replay(&session, &ids[2])
        .await
        .expect("replay")
        .expect("the GET stream's id");
    assert_eq!(stream, "g");
    assert_eq!(events.len(), 2, "g holds the events 2 and 5: {events:?}");
    let (_, last) = a
        .replay(&session, &ids[4])
        .await
        .expect("replay")
        .expect("the last event of p1");
    assert_eq!(last.len(), 1, "after the last event nothing more: {last:?}");

    // Unknown ids and ids of other sessions replay nothing.
    assert!(
        a.replay(&session, "p1.no-such-event")
            .await
            .expect("replay")
            .is_none(),
        "an unknown id replays nothing"
    );
    assert!(
        a.replay(&fresh_id(), &ids[0])
            .await
            .expect("replay")
            .is_none(),
        "a session's id replays nothing in a session without events"
    );

    // Follow: what either handle appends next is heard, in order, on its stream only.
    let mut follow = b.follow(&session, "p1", &ids[4]);
    let quiet = tokio::time::timeout(Duration::from_millis(200), follow.next()).await;
    assert!(
        quiet.is_err(),
        "nothing is followed before it is appended: {quiet:?}"
    );
    let next = a
        .append(&session, "p1", r#"{"n":6}"#)
        .await
        .expect("append");
    a.append(&session, "g", r#"{"other":true}"#)
        .await
        .expect("append");
    let after = b
        .append(&session, "p1", r#"{"n":7}"#)
        .await
        .expect("append");
    for want in [&next, &after] {
        let heard = tokio::time::timeout(STEP, follow.next())
            .await
            .expect("a followed event within 5 s")
            .expect("the follow goes on")
            .expect("no error");
        assert_eq!(
            &heard.id, want,
            "followed in order, on the followed stream only"
        );
    }
    drop(follow);

    // Forget drops the session, and only it.
    a.forget(&session).await.expect("forget");
    assert!(b.replay(&session, &ids[0]).await.expect("replay").is_none());
    assert!(
        b.replay(&other, &in_other).await.expect("replay").is_some(),
        "forgetting one session keeps another"
    );
    b.forget(&other).await.expect("clean up");
}

/// The [`TaskStore`](crate::store::TaskStore) contract: a task put through one handle is read
/// through the other, replaced whole by the next put, gone after `delete` and after its TTL; an
/// invalid task is refused. With leases ([`lease_ttl`](crate::store::TaskStore::lease_ttl)), a
/// lease taken through one handle is seen through the other until it is released or lapses.
///
/// Takes about a second (it waits for a task to expire, and for a lease to lapse).
pub async fn task_store<S: crate::store::TaskStore>(a: S, b: S) {
    use crate::protocol::task::Task;
    use crate::store::{Owner, StoredTask};
    let id = fresh_id();
    let owner = Owner::Principal("ada".into());
    let stored = StoredTask::new(Task::working(id.clone(), Some(60_000)), owner.clone());
    a.put(stored.clone()).await.expect("put");
    let read = b
        .get(&id)
        .await
        .expect("get")
        .expect("a stored task is read through the other handle");
    assert_eq!(read, stored, "the task reads back as it was put");
    assert!(
        b.get(&fresh_id()).await.expect("get").is_none(),
        "an unknown id finds nothing"
    );

    // A put replaces the whole record.
    let done = StoredTask {
        task: stored
            .task
            .clone()
            .completed(serde_json::json!({"content": []})),
        ..stored.clone()
    };
    b.put(done.clone()).await.expect("put");
    assert_eq!(
        a.get(&id).await.expect("get"),
        Some(done),
        "the last put stands"
    );

    // Delete, through the other handle; twice is fine.
    a.delete(&id).await.expect("delete");
    assert!(
        b.get(&id).await.expect("get").is_none(),
        "a deleted task is gone"
    );
    b.delete(&id).await.expect("deleting twice is no error");

    // An invalid task is refused.
    let mut invalid = StoredTask::new(Task::working(fresh_id(), Some(60_000)), owner.clone());
    invalid.task.task_id = String::new();
    assert!(
        a.put(invalid).await.is_err(),
        "a task that does not validate is refused"
    );

    // Expiry: a task past its TTL is never returned.
    let short = StoredTask::new(Task::working(fresh_id(), Some(300)), owner);
    a.put(short.clone()).await.expect("put");
    assert!(b.get(&short.task.task_id).await.expect("get").is_some());
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert!(
        b.get(&short.task.task_id).await.expect("get").is_none(),
        "a task past its TTL is gone"
    );

    // Leases, where the store keeps them.
    let Some(ttl) = a.lease_ttl() else {
        return;
    };
    let leased = fresh_id();
    assert!(
        !b.leased(&leased).await.expect("leased"),
        "no lease before one is taken"
    );
    a.lease(&leased, "node-a").await.expect("lease");
    assert!(
        b.leased(&leased).await.expect("leased"),
        "a lease is seen through the other handle"
    );
    b.release(&leased).await.expect("release");
    assert!(
        !a.leased(&leased).await.expect("leased"),
        "a released lease is gone"
    );
    a.lease(&leased, "node-a").await.expect("lease");
    tokio::time::sleep(ttl + Duration::from_millis(150)).await;
    assert!(
        !b.leased(&leased).await.expect("leased"),
        "a lease nobody renews lapses"
    );
    a.lease(&leased, "node-a").await.expect("lease");
    for _ in 0..3 {
        tokio::time::sleep(ttl / 2).await;
        a.lease(&leased, "node-a").await.expect("renew");
    }
    assert!(
        b.leased(&leased).await.expect("leased"),
        "a renewed lease holds"
    );
    a.release(&leased).await.expect("clean up");
}
