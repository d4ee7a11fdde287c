//! A naive stack tagger for the tests: WPA's rule (highest priority, then
//! the frame nearest the leaf, then the first entry) over `;`-joined export
//! stacks, and the entry points of fixtures/stacktags/test.stacktags by hand.

/// (module, method, tag, priority) in file order.
pub type Entry = (&'static str, &'static str, &'static str, i64);

/// fixtures/stacktags/test.stacktags by hand.
pub const FIXTURE_ENTRIES: [Entry; 7] = [
    ("explorer.exe", "*", "Shell", 0),
    ("windows.storage.dll", "CFSFolder::*", "Shell\\Storage", 0),
    (
        "windows.storage.dll",
        "*Overlay*",
        "Shell\\Storage\\Overlay",
        0,
    ),
    ("tishell??_*.dll", "*", "Third Party", 0),
    (
        "kernel32.dll",
        "Process32?extW",
        "Third Party\\Enumeration",
        5,
    ),
    (
        "kernel32.dll",
        "CreateToolhelp32Snapshot",
        "Third Party\\Enumeration",
        5,
    ),
    ("ntoskrnl.exe", "*", "Kernel", 0),
];

fn glob(p: &[u8], t: &[u8]) -> bool {
    match (p.first(), t.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], t) || (!t.is_empty() && glob(p, &t[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &t[1..]),
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b) && glob(&p[1..], &t[1..]),
        _ => false,
    }
}

/// WPA's rule: highest priority, then the deepest frame, then the first entry.
pub fn naive_tag(entries: &[Entry], stack: &str) -> String {
    if stack.is_empty() {
        return "n/a".into();
    }
    let mut best: Option<((i64, usize, i64), &str)> = None;
    for (depth, frame) in stack.split(';').enumerate() {
        let (module, method) = frame.split_once('!').unwrap_or(("?", frame));
        // An unnamed frame (`module!0xRVA`) has no method name yet.
        let method = if method.starts_with("0x") {
            "?"
        } else {
            method
        };
        for (j, (pm, pf, tag, prio)) in entries.iter().enumerate() {
            if glob(pm.as_bytes(), module.as_bytes()) && glob(pf.as_bytes(), method.as_bytes()) {
                let k = (*prio, depth, -(j as i64));
                if best.is_none_or(|(b, _)| k > b) {
                    best = Some((k, tag));
                }
            }
        }
    }
    best.map_or("Other".into(), |(_, t)| t.to_string())
}
