//! docs/openapi.json documents exactly the routes the router registers
//! (read from server/src/api/mod.rs), with the same methods.

use std::collections::BTreeSet;

fn routes_in_source() -> BTreeSet<(String, String)> {
    let src = include_str!("../src/api/mod.rs");
    let mut out = BTreeSet::new();
    // Each `.route("PATH", get(..).post(..)...)` up to the matching `)`.
    for chunk in src.split(".route(").skip(1) {
        let Some(path) = chunk.split('"').nth(1) else {
            continue;
        };
        if path == "/"
            || path.starts_with("/t/")
            || path.starts_with("/v/")
            || path.starts_with("/compare/")
            || path == "/across"
        {
            continue; // UI routes, outside /api
        }
        let mut depth = 0i32;
        let mut body = String::new();
        for c in chunk.chars() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => break,
                ')' => depth -= 1,
                _ => {}
            }
            body.push(c);
        }
        for m in ["get", "post", "put", "delete", "patch"] {
            if body.contains(&format!(" {m}("))
                || body.contains(&format!(".{m}("))
                || body.contains(&format!("\n{m}("))
            {
                out.insert((format!("/api{path}"), m.to_string()));
            }
        }
    }
    out
}

#[test]
fn openapi_documents_every_route() {
    let spec: serde_json::Value =
        serde_json::from_str(include_str!("../../docs/openapi.json")).expect("valid JSON");
    let mut documented = BTreeSet::new();
    for (path, ops) in spec["paths"].as_object().unwrap() {
        for m in ops.as_object().unwrap().keys() {
            documented.insert((path.clone(), m.clone()));
        }
    }
    let routes = routes_in_source();
    assert!(routes.len() >= 10, "parsed too few routes: {routes:?}");
    assert_eq!(
        documented, routes,
        "docs/openapi.json and the router disagree"
    );
}
