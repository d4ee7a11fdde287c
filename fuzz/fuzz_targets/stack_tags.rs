#![no_main]
//! Fuzz target `stack_tags`: any bytes as a WPA `.stacktags` file through
//! the parser and, when it reads, the matcher over a few frames; must end
//! normally (no panic, hang or unbounded allocation), and an error's line
//! must be inside the input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(xml) = std::str::from_utf8(data) else {
        return;
    };
    match stacktags::TagSet::parse(xml) {
        Ok(set) => {
            let m = stacktags::Matcher::new(set);
            for (module, method) in [("ntdll.dll", "RtlUserThreadStart"), ("*", "?"), ("", "")] {
                std::hint::black_box(m.frame(module, method));
            }
        }
        Err(e) => {
            let lines = xml.lines().count().max(1) as u32 + 1;
            assert!(e.line <= lines, "line {} of {lines}: {e}", e.line);
        }
    }
});
