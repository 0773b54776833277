//! The [`ReplyBus`](crate::store::ReplyBus) contract.

use std::time::Duration;

use super::fresh_id;

/// The [`ReplyBus`](crate::store::ReplyBus) contract: an answer delivered through either handle
/// reaches the handler waiting on the other, once; `deliver` says exactly whether a handler
/// waited (not for an unknown id, another session's request, an answer already given, a wait
/// that was forgotten, or one whose handler gave up at its deadline).
pub async fn reply_bus<B: crate::store::ReplyBus>(a: B, b: B) {
    use crate::store::ClientAnswer;
    const STEP: Duration = Duration::from_secs(5);
    const WAIT: Duration = Duration::from_secs(60);
    let session = fresh_id();
    let other = fresh_id();

    // Waiting on one handle, answered through the other: delivered, once.
    let waiter = a.expect(&session, "r1", WAIT).await.expect("expect");
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
    let waiter = b.expect(&session, "r2", WAIT).await.expect("expect");
    let error = ClientAnswer::Error(r#"{"code":-1,"message":"no"}"#.into());
    assert!(
        b.deliver(&session, "r2", error.clone())
            .await
            .expect("deliver")
    );
    let got = tokio::time::timeout(STEP, waiter).await.expect("in time");
    assert_eq!(got.expect("an answer"), error);

    // Unknown ids and other sessions' requests are not delivered, and leave the wait alone.
    let mut waiter = a.expect(&session, "r3", WAIT).await.expect("expect");
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
    let waiter = a.expect(&session, "r4", WAIT).await.expect("expect");
    a.forget(&session, "r4").await;
    drop(waiter);
    assert!(
        !b.deliver(&session, "r4", answer.clone())
            .await
            .expect("deliver"),
        "a wait the handler gave up is not delivered to"
    );

    // A handler that gave up at its deadline (its waiter dropped, nothing forgotten) is not
    // delivered to either, once the deadline has passed.
    let waiter = a
        .expect(&session, "r5", Duration::from_millis(200))
        .await
        .expect("expect");
    drop(waiter);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !b.deliver(&session, "r5", answer).await.expect("deliver"),
        "a wait past its deadline is not delivered to"
    );
}
