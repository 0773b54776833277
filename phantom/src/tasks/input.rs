//! Input requests of a running task: the handler's `ctx.input(…)` stores the task as
//! `input_required` with `inputRequests`, and waits; `tasks/update` delivers answers (partial
//! ones too) and the task goes back to `working` once every key it waits for is answered.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{Map, Value};

use super::{Recorder, StoredTask, Task};
use crate::input::{InputRequest, TaskChannel};
use crate::kernel::BoxFuture;
use crate::kernel::Locked as _;
use crate::protocol::{ErrorObject, codes};

/// The input side of one running task (shared by its handler and `tasks/update`).
pub(crate) struct TaskInput {
    task_id: String,
    recorder: Recorder,
    /// Every answer delivered, by key (keys are unique over the task's life).
    answers: Mutex<Map<String, Value>>,
    /// The keys the handler waits for now: only these are taken from `tasks/update`.
    pending: Mutex<HashSet<String>>,
    arrived: tokio::sync::Notify,
    /// Set (and waiters woken) when the task is cancelled or expires.
    stopped: std::sync::atomic::AtomicBool,
    stop: tokio::sync::Notify,
}

impl std::fmt::Debug for TaskInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskInput")
            .field("task_id", &self.task_id)
            .finish_non_exhaustive()
    }
}

pub(super) fn store_error(e: &crate::store::StoreError) -> ErrorObject {
    ErrorObject::new(
        codes::INTERNAL_ERROR,
        format!("Internal error: the task store failed: {}", e.message()),
    )
}

impl TaskInput {
    /// The input side of a new task, with the answers its inline phase was given.
    pub(crate) fn new(task_id: String, recorder: Recorder, answers: Map<String, Value>) -> Self {
        Self {
            task_id,
            recorder,
            answers: Mutex::new(answers),
            pending: Mutex::new(HashSet::new()),
            arrived: tokio::sync::Notify::new(),
            stopped: std::sync::atomic::AtomicBool::new(false),
            stop: tokio::sync::Notify::new(),
        }
    }

    /// The task was cancelled or expired: its handler is being dropped.
    pub(crate) fn stop(&self) {
        self.stopped
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.stop.notify_waiters();
    }

    /// Whether the task was cancelled or expired.
    pub(crate) fn is_stopped(&self) -> bool {
        self.stopped.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves once the task is cancelled or expires.
    pub(crate) async fn stopped(&self) {
        let notified = self.stop.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if !self.is_stopped() {
            notified.await;
        }
    }

    /// Takes the answers to keys the task waits for (others are ignored, as the extension
    /// says) and wakes the handler.
    pub(crate) fn deliver(&self, responses: Map<String, Value>) {
        let pending = self.pending.locked();
        let mut answers = self.answers.locked();
        for (key, value) in responses {
            if pending.contains(&key) {
                answers.insert(key, value);
            }
        }
        drop((pending, answers));
        self.arrived.notify_waiters();
    }

    /// Changes the stored task (unless it ended meanwhile: then the handler is being stopped).
    async fn change(&self, f: impl FnOnce(Task) -> Task) -> Result<(), ErrorObject> {
        let store = self.recorder.store();
        let Some(current) = store
            .get(&self.task_id)
            .await
            .map_err(|e| store_error(&e))?
        else {
            return Err(ErrorObject::new(
                codes::INTERNAL_ERROR,
                "Internal error: the task is gone",
            ));
        };
        if current.task.status.is_terminal() {
            return Err(ErrorObject::new(
                codes::INTERNAL_ERROR,
                "Internal error: the task ended",
            ));
        }
        let task = f(current.task);
        let written = self
            .recorder
            .record(StoredTask { task, ..current })
            .await
            .map_err(|e| store_error(&e))?;
        if written {
            Ok(())
        } else {
            // Cancelled (or failed) on another node between the read and the write.
            Err(ErrorObject::new(
                codes::INTERNAL_ERROR,
                "Internal error: the task ended",
            ))
        }
    }

    /// Sets the task's status message (`ctx.status(…)`); listens that follow it hear of it.
    pub(crate) async fn status(&self, message: String) -> Result<(), ErrorObject> {
        self.change(|task| task.message(message)).await
    }

    /// The answers to `requests`, in order: the task waits (`input_required`) until
    /// `tasks/update` has delivered every one.
    pub(crate) async fn ask(&self, requests: &[InputRequest]) -> Result<Vec<Value>, ErrorObject> {
        let mut asked = false;
        loop {
            let notified = self.arrived.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let missing: Map<String, Value> = {
                let answers = self.answers.locked();
                requests
                    .iter()
                    .filter(|r| !answers.contains_key(r.key()))
                    .map(|r| (r.key().to_owned(), r.to_wire()))
                    .collect()
            };
            if missing.is_empty() {
                break;
            }
            *self.pending.locked() = missing.keys().cloned().collect();
            self.change(|task| task.input_required(missing)).await?;
            asked = true;
            notified.await;
        }
        self.pending.locked().clear();
        if asked {
            self.change(Task::resumed).await?;
        }
        let answers = self.answers.locked();
        Ok(requests
            .iter()
            .map(|r| answers.get(r.key()).cloned().unwrap_or(Value::Null))
            .collect())
    }
}

impl TaskChannel for TaskInput {
    fn task_id(&self) -> &str {
        &self.task_id
    }

    fn is_stopped(&self) -> bool {
        TaskInput::is_stopped(self)
    }

    fn stopped(&self) -> BoxFuture<'_, ()> {
        Box::pin(TaskInput::stopped(self))
    }

    fn status(&self, message: String) -> BoxFuture<'_, Result<(), ErrorObject>> {
        Box::pin(TaskInput::status(self, message))
    }

    fn ask<'a>(
        &'a self,
        requests: &'a [InputRequest],
    ) -> BoxFuture<'a, Result<Vec<Value>, ErrorObject>> {
        Box::pin(TaskInput::ask(self, requests))
    }
}
