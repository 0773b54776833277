//! The [`TaskStore`](crate::store::TaskStore) contract.

use std::time::Duration;

use super::fresh_id;

/// The [`TaskStore`](crate::store::TaskStore) contract: a task put through one handle is read
/// through the other, replaced whole by the next put, gone after `delete` and after its TTL; an
/// invalid task is refused. `put_unless_ended` never overwrites a task that ended, even racing
/// writes through the other handle: a cancel stands against any progress. With leases ([`lease_ttl`](crate::store::TaskStore::lease_ttl)), a
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

    // Compare-and-set: progress is written while the task runs, never after it ended.
    let running = StoredTask::new(Task::working(fresh_id(), Some(60_000)), owner.clone());
    let running_id = running.task.task_id.clone();
    let progress = |text: &str| StoredTask {
        task: running.task.clone().message(text),
        ..running.clone()
    };
    assert!(
        !a.put_unless_ended(progress("nobody")).await.expect("put"),
        "an unknown task is not written by put_unless_ended"
    );
    assert!(b.get(&running_id).await.expect("get").is_none());
    a.put(running.clone()).await.expect("put");
    assert!(
        a.put_unless_ended(progress("step 1")).await.expect("put"),
        "progress of a running task is written"
    );
    let cancelled = StoredTask {
        task: running.task.clone().cancelled(),
        ..running.clone()
    };
    assert!(b.put_unless_ended(cancelled.clone()).await.expect("put"));
    assert!(
        !a.put_unless_ended(progress("step 2")).await.expect("put"),
        "progress after a cancel is refused"
    );
    assert_eq!(
        a.get(&running_id).await.expect("get"),
        Some(cancelled),
        "the cancel stands"
    );
    // Racing: twenty progress writes through one handle, a cancel through the other.
    let raced = StoredTask::new(Task::working(fresh_id(), Some(60_000)), owner.clone());
    a.put(raced.clone()).await.expect("put");
    let writes = (0..20).map(|i| {
        a.put_unless_ended(StoredTask {
            task: raced.task.clone().message(format!("step {i}")),
            ..raced.clone()
        })
    });
    let cancel = b.put_unless_ended(StoredTask {
        task: raced.task.clone().cancelled(),
        ..raced.clone()
    });
    // The cancel first, so that on a pipelined connection the writes read `working` before
    // its write lands: only a store that compares and writes at once keeps it.
    let (cancel, _) =
        futures_util::future::join(cancel, futures_util::future::join_all(writes)).await;
    assert!(
        cancel.expect("cancel"),
        "the cancel of a running task is written"
    );
    let last = b
        .get(&raced.task.task_id)
        .await
        .expect("get")
        .expect("the task");
    assert_eq!(
        last.task.status,
        crate::protocol::task::TaskStatus::Cancelled,
        "no racing progress write overwrote the cancel"
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
