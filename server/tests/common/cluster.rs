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
    /// nginx's master process, and its folder (apart from the test's,
    /// which a test may remove before its server is dropped).
    nginx_pid: String,
    nginx_prefix: PathBuf,
}

impl Drop for Parts {
    fn drop(&mut self) {
        // TERM: nginx's fast shutdown, workers included.
        let _ = Command::new("kill").arg(&self.nginx_pid).status();
        let _ = std::fs::remove_dir_all(&self.nginx_prefix);
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
    let mut replicas: Vec<Server> = (0..REPLICAS)
        .map(|i| {
            // The first in the test's own folder: tests that look at it
            // (no temp file left) see a replica's.
            let dir = match i {
                0 => data_dir.to_path_buf(),
                _ => data_dir.join(format!("replica-{i}")),
            };
            std::fs::create_dir_all(&dir).unwrap();
            let mut args = vec!["--catalog", &catalog, "--store", &store];
            args.extend_from_slice(extra);
            Server::start_bin(&super::team::team_binary(), command, &dir, &args, &all_env)
        })
        .collect();
    let first = replicas.remove(0);
    let prefix = super::temp_dir("etlscope-nginx");
    let port = super::team::free_port();
    let servers: String = std::iter::once(&first)
        .chain(&replicas)
        .map(|r| format!("        server {} max_fails=1 fail_timeout=2s;\n", r.addr))
        .collect();
    let template = include_str!("../../../deploy/nginx.conf");
    // The replicas' upload limit, which nginx applies with their answer.
    let max_mb: u64 = extra
        .windows(2)
        .find(|w| w[0] == "--max-upload-mb")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(8192);
    let conf = template
        .replace("@MAX_BODY_BYTES@", &(max_mb << 20).to_string())
        .replace("@LISTEN@", &format!("127.0.0.1:{port}"))
        .replace("@PREFIX@", &prefix.to_string_lossy())
        .replace("@SERVERS@", servers.trim_end());
    let conf_path = prefix.join("nginx.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let out = Command::new(nginx())
        .arg("-p")
        .arg(&prefix)
        .arg("-c")
        .arg(&conf_path)
        .output()
        .expect("run nginx");
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
    let nginx_pid = std::fs::read_to_string(prefix.join("nginx.pid"))
        .expect("nginx wrote its pid")
        .trim()
        .to_string();
    // The returned server owns the first replica's process (tests read its
    // memory, or kill it); the husk left keeps a finished stand-in.
    let mut first = first;
    let stand_in = Command::new("true").spawn().expect("spawn true");
    let child = std::mem::replace(&mut first.child, stand_in);
    let log = first.log.clone();
    replicas.insert(0, first);
    Some(Server {
        child,
        addr: format!("127.0.0.1:{port}"),
        log,
        cluster: Some(Parts {
            replicas,
            nginx_pid,
            nginx_prefix: prefix,
        }),
    })
}
