//! The [`NotificationBus`](crate::store::NotificationBus) and
//! [`SubscriptionStore`](crate::store::SubscriptionStore) contracts.

use std::time::Duration;

use super::fresh_id;

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
    let unknown = fresh_id();
    let sessions = [one.as_str(), unknown.as_str(), two.as_str()];
    assert_eq!(
        b.subscribed_each(&sessions, &asked)
            .await
            .expect("subscribed_each"),
        [true, false, true, false, false, false, false, false, true],
        "for each session in turn, a flag per URI asked, in the order asked"
    );
    assert_eq!(
        a.subscribed_each(&sessions, &[])
            .await
            .expect("subscribed_each"),
        [false; 0],
        "asking about no URI finds nothing"
    );
    assert_eq!(
        a.subscribed_each(&[], &asked)
            .await
            .expect("subscribed_each"),
        [false; 0],
        "asking about no session finds nothing"
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
    assert_eq!(
        a.subscribed_each(&[&one], &asked)
            .await
            .expect("subscribed_each"),
        [false, false, true],
        "a removed subscription is not found"
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
