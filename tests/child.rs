//! Tests that need a process of their own (a signal is sent to a whole process, stdio is the
//! process's): the test binary started again with only that test selected and a variable set,
//! which the test reads to play the child's part.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Starts this test binary again, running only `test` (its full path, as `--exact` wants it)
/// with `marker` set in its environment; its stdin and stdout are piped, its test harness's
/// output capture is off (a child's `println!` reaches the parent).
pub fn rerun(test: &str, marker: &str) -> Child {
    Command::new(std::env::current_exe().expect("this test binary"))
        .args([test, "--exact", "--quiet", "--nocapture"])
        .env(marker, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts")
}

/// Sends `SIGTERM` to `child`.
pub fn terminate(child: &Child) {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -TERM {} failed", child.id());
}

/// How `child` exited, within `within`; panics when it is still running then.
pub fn exit_status(child: &mut Child, within: Duration) -> ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the child still runs after {within:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
