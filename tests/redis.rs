//! Real `redis-server` processes for the scale-out tests: one server on a free loopback port, or
//! a three-master Redis Cluster. Each is killed when its handle drops. Without `redis-server`
//! (and `redis-cli` for a cluster) on `PATH` the test fails and says how to install them.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const INSTALL: &str =
    "install Redis 7 (Debian: `apt-get install redis-server`; `bash scripts/test.sh` does it)";

/// A free loopback port (bound and released; the server binds it next).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Sends `PING` and reads the answer: whether a server answers on `port`.
fn answers(port: u16) -> bool {
    let Ok(mut conn) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = conn.set_read_timeout(Some(Duration::from_millis(500)));
    let mut buf = [0u8; 64];
    conn.write_all(b"PING\r\n").is_ok()
        && conn
            .read(&mut buf)
            .is_ok_and(|n| buf[..n].starts_with(b"+PONG"))
}

/// One `redis-server`, without persistence, on a port of its own.
pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    extra: Vec<String>,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts a server on a free port.
    pub fn start() -> Self {
        Self::start_with(Vec::new())
    }

    /// Starts a server that writes every command to its append-only file, so that what it held
    /// survives [`RedisServer::restart`] (and [`RedisServer::kill`] before it).
    pub fn start_persistent() -> Self {
        Self::start_with(vec![
            "--appendonly".into(),
            "yes".into(),
            "--appendfsync".into(),
            "always".into(),
        ])
    }

    fn start_with(extra: Vec<String>) -> Self {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("phantom-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory for redis-server");
        let mut server = Self {
            port,
            dir,
            extra,
            child: None,
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", ""])
            .arg("--dir")
            .arg(&self.dir)
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run redis-server ({e}): {INSTALL}"));
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !answers(self.port) {
            assert!(
                Instant::now() < deadline,
                "redis-server on port {} did not answer PING within 10 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its URL, `redis://127.0.0.1:<port>/`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills it (SIGKILL): what a crashed Redis looks like to its clients.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port (empty: nothing is persisted).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A Redis Cluster of three masters (no replicas) on loopback.
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts three `--cluster-enabled` servers and joins them with `redis-cli --cluster create`.
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..3)
            .map(|_| {
                RedisServer::start_with(vec![
                    "--cluster-enabled".into(),
                    "yes".into(),
                    "--cluster-node-timeout".into(),
                    "2000".into(),
                ])
            })
            .collect();
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port()))
            .collect();
        let out = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .unwrap_or_else(|e| panic!("cannot run redis-cli ({e}): {INSTALL}"));
        assert!(
            out.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let cluster = Self { nodes };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !cluster.ok() {
            assert!(
                Instant::now() < deadline,
                "the cluster did not reach cluster_state:ok in 20 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        cluster
    }

    /// Whether every node says `cluster_state:ok`.
    fn ok(&self) -> bool {
        self.nodes.iter().all(|n| {
            Command::new("redis-cli")
                .args(["-p", &n.port().to_string(), "cluster", "info"])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("cluster_state:ok"))
        })
    }

    /// The URLs of its nodes.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }
}
