//! `ETLSCOPE_CLUSTER=DIR/cluster.env` (written by `deploy/local-cluster.sh
//! up`): every `Server::start` of the HTTP tests becomes three replicas on
//! that cluster's PostgreSQL and S3 server, behind an nginx configured by
//! deploy/nginx.conf, and the test talks to nginx. Each test's data folder
//! names its own database and bucket prefix, so tests start from an empty
//! library and a restart on the same folder finds the same one.

use super::Server;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub const REPLICAS: usize = 3;

/// The other replicas and nginx, stopped on drop.
pub struct Parts {
    pub replicas: Vec<Server>,
    pub nginx: Nginx,
}

/// An nginx of deploy/nginx.conf, stopped on drop.
pub struct Nginx {
    pub port: u16,
    /// Its master process, and its folder (apart from the test's, which a
    /// test may remove before its server is dropped).
    pid: String,
    pub prefix: PathBuf,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // TERM: nginx's fast shutdown, workers included.
        let _ = Command::new("kill").arg(&self.pid).status();
        let _ = std::fs::remove_dir_all(&self.prefix);
    }
}

impl Nginx {
    /// nginx in front of the replicas on `ports`, with the limits of the
    /// replicas' flags `extra`; `log` also writes which upstreams each
    /// request went to (`upstream.log`: nginx's `$upstream_addr`).
    pub fn start(ports: &[u16], extra: &[&str], log: bool) -> Nginx {
        // A port chosen ahead can be taken by a test running beside this
        // one before nginx binds it: then choose again.
        for _ in 0..4 {
            if let Some(nginx) = Nginx::try_start(ports, extra, log) {
                return nginx;
            }
        }
        Nginx::try_start(ports, extra, log).expect("nginx found no free port")
    }

    fn try_start(ports: &[u16], extra: &[&str], log: bool) -> Option<Nginx> {
        let prefix = super::temp_dir("etlscope-nginx");
        let port = super::team::free_port();
        let flag = |name: &str, default: u64| -> u64 {
            extra
                .windows(2)
                .find(|w| w[0] == name)
                .and_then(|w| w[1].parse().ok())
                .unwrap_or(default)
        };
        let servers: String = ports
            .iter()
            .map(|p| format!("        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;\n"))
            .collect();
        let mut conf = include_str!("../../../deploy/nginx.conf")
            .replace(
                "@MAX_BODY_BYTES@",
                &(flag("--max-upload-mb", 8192) << 20).to_string(),
            )
            .replace(
                "@HEADER_TIMEOUT@",
                &flag("--header-timeout-secs", 5).max(1).to_string(),
            )
            .replace(
                "@BODY_TIMEOUT_NGINX@",
                &(flag("--body-timeout-secs", 30).max(1) + 1).to_string(),
            )
            .replace("@LISTEN@", &format!("127.0.0.1:{port}"))
            .replace("@PREFIX@", &prefix.to_string_lossy())
            .replace("@SERVERS@", servers.trim_end());
        if log {
            conf = conf.replace(
                "access_log off;",
                &format!(
                    "log_format upstream '$upstream_addr';\n    access_log {}/upstream.log upstream;",
                    prefix.display()
                ),
            );
        }
        let conf_path = prefix.join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let out = Command::new(nginx())
            .arg("-p")
            .arg(&prefix)
            .arg("-c")
            .arg(&conf_path)
            .output()
            .expect("run nginx");
        if String::from_utf8_lossy(&out.stderr).contains("Address already in use") {
            return None;
        }
        assert!(
            out.status.success(),
            "nginx: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nginx did not listen");
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = std::fs::read_to_string(prefix.join("nginx.pid"))
            .expect("nginx wrote its pid")
            .trim()
            .to_string();
        Some(Nginx { port, pid, prefix })
    }

    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The port of the replica the hash picked for `path` (a GET sent now;
    /// with `log`): the first upstream it tried.
    pub fn routed_port(&self, path: &str) -> u16 {
        let _ = super::raw_request(&self.addr(), "GET", path, b"", &[]);
        let log = std::fs::read_to_string(self.prefix.join("upstream.log")).unwrap_or_default();
        log.lines()
            .last()
            .and_then(|l| l.split(',').next())
            .and_then(|a| a.trim().rsplit(':').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no upstream in nginx's log {log:?}"))
    }
}

fn nginx() -> &'static str {
    if Path::new("/usr/sbin/nginx").is_file() {
        "/usr/sbin/nginx"
    } else {
        "nginx"
    }
}

/// The cluster's settings, if the tests run against one.
pub fn settings() -> Option<HashMap<String, String>> {
    let path = std::env::var_os("ETLSCOPE_CLUSTER")?;
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("ETLSCOPE_CLUSTER={}: {e}", Path::new(&path).display()));
    Some(
        text.lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// A name for the test's own database and prefix, from its data folder.
fn library_name(data_dir: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in data_dir.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    format!("t{h:016x}")
}

pub fn start(
    command: &str,
    data_dir: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Option<Server> {
    let cfg = settings()?;
    let get = |k: &str| {
        cfg.get(k)
            .cloned()
            .unwrap_or_else(|| panic!("{k} missing from ETLSCOPE_CLUSTER"))
    };
    let name = library_name(data_dir);
    let base = get("CATALOG_URL");
    let admin = base.clone();
    let catalog = format!(
        "{}/{name}",
        base.rsplit_once('/').map_or(base.as_str(), |(b, _)| b)
    );
    // Created once; a restart on the same folder finds it.
    let _ = Command::new("psql")
        .args(["-X", "-q", "-d", &admin, "-c"])
        .arg(format!("CREATE DATABASE {name}"))
        .output();
    let store = format!("s3://{}/{name}", get("S3_BUCKET"));
    let (endpoint, key, secret) = (
        get("S3_ENDPOINT"),
        get("S3_ACCESS_KEY"),
        get("S3_SECRET_KEY"),
    );
    let mut all_env: Vec<(&str, &str)> = vec![
        ("AWS_ENDPOINT_URL", &endpoint),
        ("AWS_ACCESS_KEY_ID", &key),
        ("AWS_SECRET_ACCESS_KEY", &secret),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ALLOW_HTTP", "true"),
    ];
    all_env.extend_from_slice(env);
    // Each replica's port, chosen first: the replica nginx sends this
    // client's requests to (by its address, deploy/nginx.conf) is the one in
    // the test's own folder, with the process the test gets, so tests that
    // look at "the server's" files or memory see the replica that served them.
    // A port can be taken by a test running beside this one before its
    // replica binds it: then the replicas start again on fresh ports.
    let symbols = data_dir.join("symbols");
    let symbols = symbols.to_string_lossy().into_owned();
    let setup = Setup {
        command,
        data_dir,
        extra,
        env: &all_env,
        catalog: &catalog,
        store: &store,
        symbols: &symbols,
    };
    let (ports, mut replicas) = (0..5)
        .find_map(|_| {
            let ports: Vec<u16> = (0..REPLICAS).map(|_| super::team::free_port()).collect();
            setup.replicas(&ports).map(|r| (ports, r))
        })
        .expect("the replicas found free ports");
    let nginx = Nginx::start(&ports, extra, false);
    // The returned server owns the first replica's process (tests read its
    // memory, or kill it); the husk left keeps a finished stand-in.
    let mut first = replicas.remove(0);
    let stand_in = Command::new("true").spawn().expect("spawn true");
    let child = std::mem::replace(&mut first.child, stand_in);
    let log = first.log.clone();
    replicas.insert(0, first);
    Some(Server {
        child,
        addr: nginx.addr(),
        log,
        cluster: Some(Parts { replicas, nginx }),
    })
}

/// What every replica of one test's cluster is started with.
struct Setup<'a> {
    command: &'a str,
    data_dir: &'a Path,
    extra: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
    catalog: &'a str,
    store: &'a str,
    symbols: &'a str,
}

impl Setup<'_> {
    /// The replicas on `ports`, the one nginx routes this test's requests to
    /// first (in the test's own folder); None if a port was taken meanwhile
    /// (those started are stopped on drop).
    fn replicas(&self, ports: &[u16]) -> Option<Vec<Server>> {
        // Asked of a throwaway nginx with the same upstream names and nothing
        // listening yet (it then tries them all; the log lists the hash's pick first).
        let first_port = Nginx::start(ports, self.extra, true).routed_port("/api/traces");
        let mut order = ports.to_vec();
        order.retain(|p| *p != first_port);
        order.insert(0, first_port);
        let mut replicas = Vec::with_capacity(order.len());
        for (i, port) in order.iter().enumerate() {
            let dir = match i {
                0 => self.data_dir.to_path_buf(),
                _ => self.data_dir.join(format!("replica-{i}")),
            };
            std::fs::create_dir_all(&dir).unwrap();
            // nginx names the client in X-Forwarded-For. The local copies
            // of the store's traces where a single server keeps its uploads
            // (`traces/`), which tests look at. Every replica's copies of the
            // uploaded PDBs in one folder (the same `--symbols-dir` on each,
            // as on several hosts): the Symbols panel of any replica names
            // the folder "the server's" is, the test's.
            let cache = dir.join("traces");
            let cache = cache.to_string_lossy().into_owned();
            let mut args = vec![
                "--catalog",
                self.catalog,
                "--store",
                self.store,
                "--cache-dir",
                &cache,
                "--symbols-dir",
                self.symbols,
                "--trusted-proxy",
                "127.0.0.1",
            ];
            args.extend_from_slice(self.extra);
            replicas.push(Server::try_start_bin_at(
                &super::team::team_binary(),
                &format!("127.0.0.1:{port}"),
                self.command,
                &dir,
                &args,
                self.env,
            )?);
        }
        Some(replicas)
    }
}
