//! Issue 31, point 6: uploads of the same new bytes at the same time add
//! the trace once: exactly one 201, every other 200 with the same entry.

mod common;

use common::{fixture_trace, request, temp_dir, Server};
use serde_json::Value;
use std::sync::{Arc, Barrier};

#[test]
fn concurrent_uploads_of_the_same_new_bytes_give_exactly_one_201() {
    let (trace, _) = fixture_trace::write();
    let trace = Arc::new(trace);
    let mut tallies = Vec::new();
    // A few rounds, each on a fresh library, so that the race is met.
    for round in 0..5 {
        let data = temp_dir("upload-race");
        let server = Server::start(&data, &[]);
        let n = 16;
        let go = Arc::new(Barrier::new(n));
        let answers: Vec<(u16, String)> = (0..n)
            .map(|_| {
                let (addr, go, trace) = (server.addr.clone(), go.clone(), trace.clone());
                std::thread::spawn(move || {
                    go.wait();
                    request(&addr, "POST", "/api/traces?name=race.etl", &trace, &[])
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("upload thread"))
            .collect();
        let statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
        eprintln!("# round {round}: {n} concurrent uploads of the same new bytes: {statuses:?}");
        tallies.push(statuses.clone());
        let ids: Vec<String> = answers
            .iter()
            .map(|(s, b)| {
                let v: Value = serde_json::from_str(b).unwrap_or_else(|e| panic!("{s}: {e}: {b}"));
                v["id"].as_str().unwrap_or_default().to_string()
            })
            .collect();
        assert!(ids.iter().all(|i| !i.is_empty() && *i == ids[0]), "{ids:?}");
        let (_, list) = server.json("GET", "/api/traces", "");
        assert_eq!(list["traces"].as_array().map(Vec::len), Some(1), "{list}");
        server.wait_ready(&ids[0], 60);
        drop(server);
        std::fs::remove_dir_all(&data).ok();
    }
    for statuses in &tallies {
        assert_eq!(
            statuses.iter().filter(|&&s| s == 201).count(),
            1,
            "{tallies:?}"
        );
        assert!(
            statuses.iter().all(|&s| s == 200 || s == 201),
            "{tallies:?}"
        );
    }
}
