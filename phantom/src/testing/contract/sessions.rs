//! The [`SessionStore`] contract.

use std::time::Duration;

use super::fresh_id;

use serde_json::json;

use crate::protocol::{Implementation, LogLevel};
use crate::store::{SessionRecord, SessionStore, StoreErrorKind};

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
