//! A real PostgreSQL for tests: `initdb` into a temp folder and `pg_ctl`
//! on a free loopback port, stopped and removed on drop. Shared by the
//! catalog's unit tests and the integration tests (`tests/common`).
//! Without the binaries the tests say so loudly and skip, except under
//! `CI=true`, where that is a failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct TestPostgres {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
}

/// Where `initdb` and `pg_ctl` are: on PATH, else Debian's versioned folder.
fn bin_dir() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PATH") {
        for d in std::env::split_paths(&path) {
            if d.join("pg_ctl").is_file() && d.join("initdb").is_file() {
                return Some(d);
            }
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("pg_ctl").is_file())
        .collect();
    versions.sort();
    versions.pop()
}

/// PostgreSQL refuses to run as root: as root, run it as `postgres`.
fn as_owner(bin: &Path, tool: &str) -> Command {
    let exe = bin.join(tool);
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(exe);
        c
    } else {
        Command::new(exe)
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl TestPostgres {
    /// A running server, or None (after a loud notice) when PostgreSQL is
    /// not installed; panics under CI=true then.
    pub fn start(tag: &str) -> Option<TestPostgres> {
        let Some(bin) = bin_dir() else {
            let msg = "PostgreSQL binaries (initdb, pg_ctl) not found: install Debian's postgresql package; \
                       the PostgreSQL tests are SKIPPED";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{msg} (not allowed under CI=true)");
            }
            eprintln!("\n*** {msg} ***\n");
            return None;
        };
        let dir = std::env::temp_dir().join(format!(
            "etlscope-pg-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).expect("pg temp dir");
        let _ = Command::new("chown")
            .args(["-R", "postgres:postgres"])
            .arg(&dir)
            .status();
        let data = dir.join("data");
        let out = as_owner(&bin, "initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "etlscope",
                "--no-sync",
                "--locale=C",
                "-E",
                "UTF8",
                "-D",
            ])
            .arg(&data)
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let pg = TestPostgres {
            dir,
            bin,
            port: free_port(),
        };
        pg.ctl_start();
        Some(pg)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Start (or start again) the server on its port.
    pub fn ctl_start(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.display()
        );
        let out = as_owner(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-o", &opts, "-l"])
            .arg(self.dir.join("log"))
            .args(["-w", "start"])
            .output()
            .expect("run pg_ctl start");
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
        );
    }

    /// Stop at once (as a crash would).
    pub fn ctl_stop(&self) {
        let _ = as_owner(&self.bin, "pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgres://etlscope@127.0.0.1:{}/{db}", self.port)
    }

    /// A new empty database named `db`.
    pub fn create_db(&self, db: &str) -> String {
        let out = Command::new("psql")
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-d",
                &self.url("postgres"),
                "-c",
            ])
            .arg(format!("CREATE DATABASE {db}"))
            .output()
            .expect("run psql");
        assert!(
            out.status.success(),
            "create database: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.url(db)
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        self.ctl_stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
