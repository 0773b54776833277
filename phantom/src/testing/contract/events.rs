//! The [`EventStore`](crate::store::EventStore) contract.

use std::time::Duration;

use super::fresh_id;

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
