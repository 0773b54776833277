//! What a test logs, captured at every level, for the tests that search it for secrets.

use std::sync::{Arc, Mutex};

/// Everything logged, for the test that searches it.
#[derive(Clone, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    /// Everything this thread logs from now on, at every level, until the guard drops.
    pub fn trace() -> (Self, tracing::subscriber::DefaultGuard) {
        // `tracing` caches whether a callsite is wanted by any subscriber: when another test's
        // thread, with no subscriber, reaches a callsite first, the cache can say "never" for
        // this thread too. With a global subscriber (that keeps nothing), no callsite is
        // unwanted.
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
        });
        let captured = Self::default();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(captured.clone())
            .finish();
        (captured, tracing::subscriber::set_default(subscriber))
    }

    /// What was logged.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Self;

    fn make_writer(&'a self) -> Self {
        self.clone()
    }
}
