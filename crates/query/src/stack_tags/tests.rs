//! Expected tags derived by hand from `fixtures/stacktags/test.stacktags`
//! and WPA's rule (highest priority, then deepest frame).

use super::matcher::{deeper, Hit};
use super::{ParseErrorKind, StackTags, TagSet};

const TEST_FILE: &str = include_str!("../../../../fixtures/stacktags/test.stacktags");

fn tags() -> StackTags {
    match StackTags::parse("test", TEST_FILE) {
        Ok(t) => t,
        Err(e) => panic!("test file: {e}"),
    }
}

/// The tag of a stack given root first as `module!method` frames.
fn tag_of(t: &StackTags, frames: &[&str]) -> String {
    let hit = frames.iter().fold(None::<(u32, i64)>, |acc, f| {
        let (m, f) = f.split_once('!').unwrap_or((f, "?"));
        deeper(acc, t.matcher.frame(m, f))
    });
    t.label(hit.map_or(t.other_key(), |(k, _)| k))
}

#[test]
fn nested_names_join_with_backslash() {
    let t = tags();
    let names = &t.matcher.set().tags;
    assert_eq!(
        names,
        &[
            "Shell",
            "Shell\\Storage",
            "Shell\\Storage\\Overlay",
            "Third Party",
            "Third Party\\Enumeration",
            "Kernel"
        ]
    );
    assert_eq!(t.matcher.set().entries.len(), 7);
    // HintTag is read past and reported, not applied.
    assert_eq!(t.matcher.set().ignored, vec!["HintTag".to_string()]);
}

#[test]
fn deepest_frame_wins() {
    let t = tags();
    assert_eq!(tag_of(&t, &["explorer.exe!wWinMain"]), "Shell");
    assert_eq!(
        tag_of(
            &t,
            &[
                "explorer.exe!wWinMain",
                "windows.storage.dll!CFSFolder::GetAttributesOf"
            ]
        ),
        "Shell\\Storage"
    );
    // `*Overlay*` and `CFSFolder::*` both match; the first in the file wins
    // on one frame at equal priority.
    assert_eq!(
        tag_of(
            &t,
            &[
                "explorer.exe!a",
                "windows.storage.dll!CFSFolder::_GetOverlayInfo"
            ]
        ),
        "Shell\\Storage"
    );
    assert_eq!(
        tag_of(
            &t,
            &[
                "explorer.exe!a",
                "windows.storage.dll!CFSIconOverlayManager::X"
            ]
        ),
        "Shell\\Storage\\Overlay"
    );
    // A deeper kernel frame takes over (both priority 0).
    assert_eq!(
        tag_of(&t, &["explorer.exe!a", "ntoskrnl.exe!KiPageFault"]),
        "Kernel"
    );
    // Frames that match nothing below the last match keep its tag.
    assert_eq!(
        tag_of(&t, &["explorer.exe!a", "ntdll.dll!RtlAllocateHeap"]),
        "Shell"
    );
}

#[test]
fn wildcards_in_module_and_method() {
    let t = tags();
    // `tishell??_*.dll`: two characters, then anything.
    assert_eq!(tag_of(&t, &["tishell64_26_0_39450.dll!?"]), "Third Party");
    assert_eq!(tag_of(&t, &["tishell6_26.dll!?"]), "Other");
    // `Process32?extW`, case-insensitive module.
    assert_eq!(
        tag_of(&t, &["KERNEL32.DLL!Process32NextW"]),
        "Third Party\\Enumeration"
    );
    assert_eq!(tag_of(&t, &["kernel32.dll!Process32FirstW"]), "Other");
}

#[test]
fn priority_beats_depth() {
    let t = tags();
    // Enumeration (priority 5) stays over the deeper kernel frame (0).
    assert_eq!(
        tag_of(
            &t,
            &[
                "explorer.exe!a",
                "tishell64_26_0_39450.dll!?",
                "kernel32.dll!CreateToolhelp32Snapshot",
                "ntoskrnl.exe!KiSystemServiceCopyEnd"
            ]
        ),
        "Third Party\\Enumeration"
    );
}

#[test]
fn unmatched_is_other() {
    let t = tags();
    assert_eq!(tag_of(&t, &["msedge.exe!main", "user32.dll!?"]), "Other");
    assert_eq!(t.label(t.no_stack_key()), "n/a");
}

#[test]
fn hostile_files_are_errors() {
    let err = |x: &str| TagSet::parse(x).err().map(|e| (e.line, e.kind));
    let e = TagSet::parse("<x>\n<Tag></x>").err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some("line 2: not well-formed XML: expected 'Tag' tag, not 'x' at 2:6")
    );
    assert_eq!(
        err("<x>\n<Tag Name=\"a\"/></x>"),
        Some((1, ParseErrorKind::NoEntries))
    );
    let dtd = "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><Tag Name=\"&a;\"><Entrypoint Module=\"m\" Method=\"f\"/></Tag>";
    assert!(matches!(err(dtd), Some((_, ParseErrorKind::Xml(_)))));
    let prio = "<Tag>\n<Tag Name=\"a\" Priority=\"high\"><Entrypoint Module=\"m\" Method=\"f\"/></Tag></Tag>";
    assert_eq!(
        err(prio),
        Some((2, ParseErrorKind::BadPriority("high".into())))
    );
    let e = TagSet::parse(prio).err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some("line 2: Priority \"high\" is not an integer")
    );
    let deep = format!(
        "{}<Entrypoint Module=\"m\" Method=\"f\"/>{}",
        "<Tag Name=\"a\">\n".repeat(200),
        "</Tag>".repeat(200)
    );
    assert_eq!(err(&deep), Some((66, ParseErrorKind::TooDeep)));
    let big = " ".repeat(super::parse::MAX_BYTES + 1);
    assert!(matches!(err(&big), Some((0, ParseErrorKind::TooLarge(_)))));
}

#[test]
fn builtin_set_parses() {
    let b = StackTags::builtin();
    assert!(b.matcher.set().entries.len() > 50);
    let hit: Hit = b.matcher.frame("clr.dll", "WKS::gc_heap::mark_phase");
    assert_eq!(hit.map(|(k, _)| b.label(k)), Some(".NET\\GC".into()));
    let hit = b.matcher.frame("clr.dll", "MethodDesc::DoPrestub");
    assert_eq!(hit.map(|(k, _)| b.label(k)), Some(".NET\\Runtime".into()));
    let hit = b.matcher.frame("ntoskrnl.exe", "KiPageFault");
    assert_eq!(
        hit.map(|(k, _)| b.label(k)),
        Some("Windows\\Kernel\\Page Fault".into())
    );
}

/// `*` and `?` by plain recursion, ASCII case-insensitive: the reference
/// for `Pattern`'s backtracking matcher.
fn naive_glob(p: &[u8], t: &[u8]) -> bool {
    match (p.first(), t.first()) {
        (None, None) => true,
        (Some(b'*'), _) => naive_glob(&p[1..], t) || (!t.is_empty() && naive_glob(p, &t[1..])),
        (Some(b'?'), Some(_)) => naive_glob(&p[1..], &t[1..]),
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b) && naive_glob(&p[1..], &t[1..]),
        _ => false,
    }
}

#[test]
fn patterns_agree_with_naive_recursion() {
    let mut r = testdata::Rng::new(11);
    let chars = *b"*?aB.";
    for _ in 0..20_000 {
        let p: Vec<u8> = (0..r.below(9)).map(|_| r.pick(&chars)).collect();
        let t: Vec<u8> = (0..r.below(12)).map(|_| r.pick(b"abA.")).collect();
        let (ps, ts) = (String::from_utf8_lossy(&p), String::from_utf8_lossy(&t));
        assert_eq!(
            super::pattern::Pattern::new(&ps).matches(&ts),
            naive_glob(&p, &t),
            "{ps:?} on {ts:?}"
        );
    }
}

#[test]
fn mangled_files_never_panic() {
    let mut r = testdata::Rng::new(7);
    let noise = b"<>/=\"'*?!&;#x \n";
    let mut parsed = 0;
    for _ in 0..3000 {
        let mut b = TEST_FILE.as_bytes().to_vec();
        for _ in 0..1 + r.below(8) {
            let i = r.below(b.len());
            match r.below(3) {
                0 => b[i] = r.pick(noise),
                1 => b.truncate(i.max(1)),
                _ => {
                    let j = r.below(b.len());
                    let piece = b[i.min(j)..i.max(j)].to_vec();
                    b.splice(i..i, piece);
                    b.truncate(1 << 16);
                }
            }
        }
        if let Ok(set) = TagSet::parse(&String::from_utf8_lossy(&b)) {
            parsed += 1;
            let m = super::Matcher::new(set);
            let _ = m.frame("explorer.exe", "wWinMain");
        }
    }
    assert!(parsed > 0);
}
