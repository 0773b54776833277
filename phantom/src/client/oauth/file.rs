//! [`FileTokenStore`]: the tokens in one JSON file of the user's, readable by its owner only.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::store::{TokenStore, Tokens};
use crate::store::StoreError;

/// How long a write waits for another writer of the file before it fails: longer than a dead
/// writer's lock lasts, so that one is taken over instead of failing the write.
const WRITE_WAIT: Duration = Duration::from_secs(7);
/// How long a writer's lock file lasts if its writer died.
const WRITE_LEASE: Duration = Duration::from_secs(5);
/// How old a lock file that says nothing (its maker died before writing it) must be to lapse.
const UNFILLED: Duration = Duration::from_secs(5);

/// Tokens in one JSON file, by resource, so that the processes of a user share them (the
/// command line's runs, several tools).
///
/// The file and the directories it creates are its owner's only (`0600` and `0700` on Unix); a
/// write goes to a temporary file renamed over the old one, so a reader never sees half of it.
/// The refresh lease of a resource is a lock file beside it (`<file>.<hash>.lock`, created only
/// if absent, holding its holder and when it lapses); a lapsed one is taken over. Writes take a
/// lock file of their own (`<file>.lock`) so that two processes saving different resources do
/// not lose either. Where the file lives is the caller's choice.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
}

impl FileTokenStore {
    /// A store in the file at `path` (created with its directories on the first save).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError::other(format!("token file `{}`: {what}: {e}", self.path.display()))
    }

    fn read(&self) -> Result<BTreeMap<String, Tokens>, StoreError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| self.error("not JSON", e)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
            Err(e) => Err(self.error("cannot be read", e)),
        }
    }

    fn write(&self, all: &BTreeMap<String, Tokens>) -> Result<(), StoreError> {
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        create_dir(&dir).map_err(|e| self.error("its directory cannot be made", e))?;
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temp = dir.join(format!(".{name}.{}.tmp", crate::kernel::random_id::<8>()));
        let json = serde_json::to_vec_pretty(all).map_err(|e| self.error("not written", e))?;
        let written = owner_only()
            .create_new(true)
            .write(true)
            .open(&temp)
            .and_then(|mut file| {
                file.write_all(&json)?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&temp, &self.path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(self.error("cannot be written", e));
        }
        Ok(())
    }

    /// The lock file of `resource`'s refresh lease (`None`: the writers' lock).
    fn lock_path(&self, resource: Option<&str>) -> PathBuf {
        let mut path = self.path.clone().into_os_string();
        if let Some(resource) = resource {
            path.push(format!(".{:016x}", fnv(resource)));
        }
        path.push(".lock");
        PathBuf::from(path)
    }

    /// Takes the lock file at `path` for `holder` during `ttl`, taking a lapsed one over.
    fn take(&self, path: &Path, holder: &str, ttl: Duration) -> Result<bool, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            create_dir(dir).map_err(|e| self.error("its directory cannot be made", e))?;
        }
        for _ in 0..2 {
            let until = now_ms() + u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
            match owner_only().create_new(true).write(true).open(path) {
                Ok(mut file) => {
                    file.write_all(format!("{holder}\n{until}\n").as_bytes())
                        .map_err(|e| self.error("a lock file cannot be written", e))?;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let lapsed = match std::fs::read_to_string(path) {
                        Ok(text) => match lock_until(&text) {
                            Some(at) => at <= now_ms(),
                            // Being written (made, not yet filled), or left half-written by a
                            // writer that died: lapsed once older than a write can take.
                            None => older_than(path, UNFILLED),
                        },
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                        Err(e) => return Err(self.error("a lock file cannot be read", e)),
                    };
                    if !lapsed {
                        return Ok(false);
                    }
                    match std::fs::remove_file(path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(self.error("a lapsed lock file cannot be removed", e)),
                    }
                }
                Err(e) => return Err(self.error("a lock file cannot be made", e)),
            }
        }
        Ok(false)
    }

    /// Changes the file under the writers' lock: read, `change`, written back.
    async fn edit(
        &self,
        change: impl FnOnce(&mut BTreeMap<String, Tokens>),
    ) -> Result<(), StoreError> {
        let lock = self.lock_path(None);
        let holder = crate::kernel::random_id::<12>();
        let deadline = std::time::Instant::now() + WRITE_WAIT;
        while !self.take(&lock, &holder, WRITE_LEASE)? {
            if std::time::Instant::now() >= deadline {
                return Err(StoreError::unavailable(format!(
                    "token file `{}`: another process holds `{}`",
                    self.path.display(),
                    lock.display()
                )));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let written = self.read().and_then(|mut all| {
            change(&mut all);
            self.write(&all)
        });
        let given = self.give_back(&lock, &holder);
        written.and(given)
    }

    /// Removes the lock file at `path` if `holder` holds it.
    fn give_back(&self, path: &Path, holder: &str) -> Result<(), StoreError> {
        match std::fs::read_to_string(path) {
            Ok(text) if text.lines().next() == Some(holder) => match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(self.error("a lock file cannot be removed", e))
                }
                _ => Ok(()),
            },
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(self.error("a lock file cannot be read", e)),
        }
    }
}

impl TokenStore for FileTokenStore {
    async fn load(&self, resource: &str) -> Result<Option<Tokens>, StoreError> {
        Ok(self.read()?.remove(resource))
    }

    async fn save(&self, resource: &str, tokens: Tokens) -> Result<(), StoreError> {
        self.edit(|all| {
            all.insert(resource.to_owned(), tokens);
        })
        .await
    }

    async fn remove(&self, resource: &str) -> Result<(), StoreError> {
        self.edit(|all| {
            all.remove(resource);
        })
        .await
    }

    async fn lock(&self, resource: &str, holder: &str, ttl: Duration) -> Result<bool, StoreError> {
        self.take(&self.lock_path(Some(resource)), holder, ttl)
    }

    async fn unlock(&self, resource: &str, holder: &str) -> Result<(), StoreError> {
        self.give_back(&self.lock_path(Some(resource)), holder)
    }
}

/// Whether the file at `path` was last written more than `age` ago (a file that is gone is).
fn older_than(path: &Path, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or(true, |at| at.elapsed().is_ok_and(|elapsed| elapsed > age))
}

/// When the lock file's lease lapses (milliseconds since the Unix epoch).
fn lock_until(text: &str) -> Option<u64> {
    text.lines().nth(1)?.trim().parse().ok()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or_default()
}

/// FNV-1a, 64 bits: a lock file's name for a resource, the same in every process and version.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Options opening a file its owner only can read and write (`0600` on Unix).
fn owner_only() -> std::fs::OpenOptions {
    #[allow(unused_mut)]
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Makes `dir` and its parents, those it makes its owner's only (`0700` on Unix).
fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}
