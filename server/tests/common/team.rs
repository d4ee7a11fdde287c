//! The team server's backends for tests, real and on loopback: PostgreSQL
//! (initdb/pg_ctl in a temp folder) and an S3-compatible server (s3s-fs,
//! `cargo install s3s-fs`), and replicas of `etlscope serve` using them.
//! Missing binaries: a loud skip, a failure under CI=true.

use super::{temp_dir, Server};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../../src/catalog/test_postgres.rs"]
pub mod pg;
pub use pg::TestPostgres;

/// The binary the replicas run: `$ETLSCOPE_TEAM_BIN`, else the one cargo
/// built for these tests (with the `team` feature; `$ETLSCOPE_BIN` may be a
/// default release build without it).
pub fn team_binary() -> PathBuf {
    std::env::var_os("ETLSCOPE_TEAM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_etlscope")))
}

pub const ACCESS_KEY: &str = "etlscope-test";
pub const SECRET_KEY: &str = "etlscope-test-secret";
pub const BUCKET: &str = "traces";

fn skip_or_fail(msg: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{msg} (not allowed under CI=true)");
    }
    eprintln!("\n*** {msg} ***\n");
}

/// `s3s-fs`: `$ETLSCOPE_S3S_FS`, on PATH, or in ~/.cargo/bin.
pub fn s3s_fs_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ETLSCOPE_S3S_FS") {
        return Some(PathBuf::from(p));
    }
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(h) = std::env::var_os("HOME") {
        dirs.push(Path::new(&h).join(".cargo/bin"));
    }
    dirs.into_iter()
        .map(|d| d.join("s3s-fs"))
        .find(|p| p.is_file())
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A running s3s-fs over a temp folder, killed on drop.
pub struct S3Server {
    child: Option<Child>,
    bin: PathBuf,
    pub root: PathBuf,
    pub port: u16,
}

impl S3Server {
    pub fn start() -> Option<S3Server> {
        let Some(bin) = s3s_fs_binary() else {
            skip_or_fail(
                "s3s-fs not found (cargo install s3s-fs --version 0.14.1 --features binary --locked): \
                 the object store tests are SKIPPED",
            );
            return None;
        };
        let root = temp_dir("etlscope-s3");
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let mut s = S3Server {
            child: None,
            bin,
            root,
            port: free_port(),
        };
        s.resume();
        Some(s)
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The variables a replica reads its store's endpoint and keys from.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ACCESS_KEY_ID", ACCESS_KEY.into()),
            ("AWS_SECRET_ACCESS_KEY", SECRET_KEY.into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// Stop it (as a crash would).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Start it again on the same port and folder.
    pub fn resume(&mut self) {
        let child = Command::new(&self.bin)
            .args(["--host", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--access-key", ACCESS_KEY, "--secret-key", SECRET_KEY])
            .arg(&self.root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start s3s-fs");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "s3s-fs did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The objects stored under `prefix` in the bucket: (name, bytes).
    pub fn objects(&self, prefix: &str) -> Vec<(String, u64)> {
        let mut out: Vec<(String, u64)> = std::fs::read_dir(self.root.join(BUCKET).join(prefix))
            .map(|d| {
                d.flatten()
                    .filter(|e| e.path().is_file())
                    .map(|e| {
                        (
                            e.file_name().to_string_lossy().into_owned(),
                            e.metadata().map_or(0, |m| m.len()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }
}

impl Drop for S3Server {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// PostgreSQL and the S3 server, both running, or None (skipped).
pub struct Backends {
    pub pg: TestPostgres,
    pub s3: S3Server,
    pub catalog: String,
    pub prefix: String,
    /// The replicas' data folders (their caches hold trace copies),
    /// removed with the backends, after the replicas (declared later).
    dirs: std::cell::RefCell<Vec<PathBuf>>,
}

impl Drop for Backends {
    fn drop(&mut self) {
        for d in self.dirs.borrow().iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

impl Backends {
    pub fn start(tag: &str) -> Option<Backends> {
        let pg = TestPostgres::start(tag)?;
        let s3 = S3Server::start()?;
        let catalog = pg.create_db("etlscope");
        Some(Backends {
            pg,
            s3,
            catalog,
            prefix: format!("team-{tag}"),
            dirs: Default::default(),
        })
    }

    /// A replica of `etlscope serve` on these backends, with its own data
    /// folder (caches only) and `extra` flags.
    pub fn replica(&self, extra: &[&str]) -> Server {
        self.replica_env(extra, &[])
    }

    /// `replica` with more environment variables.
    pub fn replica_env(&self, extra: &[&str], more_env: &[(&str, &str)]) -> Server {
        let data = temp_dir("etlscope-replica");
        self.dirs.borrow_mut().push(data.clone());
        let store = format!("s3://{BUCKET}/{}", self.prefix);
        let mut args = vec!["--catalog", &self.catalog, "--store", &store];
        args.extend_from_slice(extra);
        let env = self.s3.env();
        let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        env.extend_from_slice(more_env);
        Server::start_bin(&team_binary(), "serve", &data, &args, &env)
    }
}
