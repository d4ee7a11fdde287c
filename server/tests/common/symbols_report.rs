//! `etlscope symbols FILE` parsed: each module line's `named/frames`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Frames not named per module name (frames minus named, summed over the
/// modules of one name), and all module frames, from the CLI's text.
pub fn unnamed_frames(file: &Path) -> (BTreeMap<String, u64>, u64) {
    let out = Command::new(super::binary())
        .arg("symbols")
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "symbols {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8_lossy(&out.stdout))
}

/// The module is the first word; the figure the first `N/M` word after it
/// (the header and the summary line have none).
pub fn parse(text: &str) -> (BTreeMap<String, u64>, u64) {
    let mut unnamed = BTreeMap::new();
    let mut all = 0;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(module) = words.next() else { continue };
        let Some((named, frames)) = words.find_map(|w| {
            let (a, b) = w.split_once('/')?;
            Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?))
        }) else {
            continue;
        };
        all += frames;
        *unnamed.entry(module.to_string()).or_default() += frames - named;
    }
    (unnamed, all)
}
