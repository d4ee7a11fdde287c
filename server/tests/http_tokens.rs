//! Issue 12, point 3: an empty token is no token (refused at start, never
//! matches); the `Bearer` scheme is matched case-insensitively.

mod common;

use common::{fixture_trace, request, temp_dir, Server};
use std::process::Command;

fn serve_output(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let data = temp_dir("token-start");
    let mut cmd = Command::new(common::binary());
    cmd.args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .args(args)
        .env_remove("ETLSCOPE_TOKEN");
    for (k, v) in env {
        cmd.env(k, v);
    }
    // A server that wrongly starts is stopped by the timeout below.
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().ok();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    std::fs::remove_dir_all(&data).ok();
    out
}

#[test]
fn an_empty_token_is_refused_at_start() {
    for (args, env) in [
        (vec!["--token", ""], vec![]),
        (vec!["--token", "   "], vec![]),
        (vec!["--token="], vec![]),
        (vec![], vec![("ETLSCOPE_TOKEN", " ")]),
    ] {
        let out = serve_output(&args, &env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?} {env:?}: {err}");
        assert!(
            err.contains("--token") && err.contains("empty"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn bearer_is_case_insensitive_and_blank_credentials_never_match() {
    let data = temp_dir("token-bearer");
    let server = Server::start(&data, &["--token", "t0k"]);
    let (trace, _) = fixture_trace::write();
    let up = |auth: &str| {
        request(
            &server.addr,
            "POST",
            "/api/traces?name=a.etl",
            &trace,
            &[("Authorization", auth)],
        )
        .0
    };
    for bad in [
        "Bearer",
        "Bearer ",
        "bearer  ",
        "Bearer t0",
        "Basic t0k",
        "t0k",
    ] {
        assert_eq!(up(bad), 401, "{bad:?}");
    }
    let (s, _) = request(
        &server.addr,
        "POST",
        "/api/traces?name=a.etl",
        &trace,
        &[("X-Etlscope-Token", "")],
    );
    assert_eq!(s, 401);
    assert_eq!(up("bearer t0k"), 201);
    assert_eq!(up("BEARER t0k"), 200, "same bytes again");
    assert_eq!(up("Bearer   t0k  "), 200);
    std::fs::remove_dir_all(&data).ok();
}
