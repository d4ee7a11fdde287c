//! A profile from anyone: refused with the line, never a panic, a hang or
//! unbounded memory.

use std::time::Instant;

const HEAD: &str = "<WpaProfileContainer><Content><Views><View Title=\"V\"><Graphs>\
<Graph Guid=\"b855361e-7be0-4bc8-a754-3e8507715ca5\">";
const TAIL: &str = "</Graph></Graphs></View></Views></Content></WpaProfileContainer>";

#[test]
fn entity_expansion_and_oversize_are_refused() {
    let bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<WpaProfileContainer>&b;</WpaProfileContainer>";
    let e = wpaprofile::parse(bomb)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("DTD"), "{e}");
    let big = format!("{HEAD}{}{TAIL}", " ".repeat(wpaprofile::MAX_BYTES));
    assert!(wpaprofile::parse(&big).is_err());
    let e = wpaprofile::parse("<Profile/>")
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(e.contains("WpaProfileContainer"), "{e}");
}

#[test]
fn many_nodes_and_deep_nesting_end_quickly() {
    let t = Instant::now();
    let many = format!("{HEAD}{}{TAIL}", "<a/>".repeat(500_000));
    assert!(wpaprofile::parse(&many).is_err());
    let deep = format!(
        "{HEAD}{}{}{TAIL}",
        "<a>".repeat(100_000),
        "</a>".repeat(100_000)
    );
    let _ = wpaprofile::parse(&deep);
    // Presets with many columns: the line index keeps this linear.
    let cols =
        "<Column Name=\"Count\" IsVisible=\"true\" AggregationMode=\"Sum\"/>\n".repeat(1_500);
    let preset = format!(
        "<Preset Name=\"p\" KeyColumnCount=\"4000000000\"><Columns>{cols}</Columns></Preset>"
    );
    let p = wpaprofile::parse(&format!("{HEAD}{}{TAIL}", preset.repeat(20)));
    assert_eq!(p.map(|p| p.presets.len()).unwrap_or(0), 20);
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
}

#[test]
fn bad_attributes_name_their_line() {
    let x = format!("{HEAD}\n\n<Preset Name=\"p\"><Columns>\n<Column Name=\"A\" SortPriority=\"high\"/></Columns></Preset>{TAIL}");
    let e = wpaprofile::parse(&x)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("line 4:") && e.contains("SortPriority"),
        "{e}"
    );
}
