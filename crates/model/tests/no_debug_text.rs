//! No Generic Events field of any real trace shows Rust debug output: every
//! value is a decoded field's text (or the payload's hex), never a typed
//! decoder's `Debug` dump such as `Some(3)`, `Image { base: .. }` or
//! `ImageKind::Load`.

use testdata::real_traces_dir;

/// Whether `v` looks like Rust `Debug` output rather than a field value.
/// Trace text can hold quotes and C++/CLI `MS::Internal::..` names, so a
/// path counts only as a whole `Type::Variant` value.
fn debug_text(v: &str) -> Option<&'static str> {
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.chars().all(|c| c.is_ascii_alphanumeric())
    };
    let path = v
        .split_once("::")
        .is_some_and(|(a, b)| ident(a) && ident(b));
    // `Image { base: 1 }`: a type name, ` { `, a snake_case field and `: `.
    let dump = v.match_indices(" { ").any(|(at, _)| {
        let before = v[..at].rsplit(|c: char| !c.is_ascii_alphanumeric()).next();
        let after = v[at + 3..].split_once(": ").map(|(f, _)| f);
        before.is_some_and(ident)
            && after.is_some_and(|f| {
                !f.is_empty() && f.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            })
    });
    if v.contains("Some(") || v.contains("Ok(") || v.contains("Err(") {
        Some("Option/Result")
    } else if dump {
        Some("struct braces")
    } else if path {
        Some("Type::Variant")
    } else {
        None
    }
}

#[test]
fn detector_finds_debug_dumps_and_passes_values() {
    assert!(debug_text("Some(3)").is_some());
    assert!(debug_text("Image { base: 1 }").is_some());
    assert!(debug_text("ImageKind::Load").is_some());
    for ok in [
        "C:\\Windows\\System32\\ntdll.dll",
        "fe80::1",
        "DomainNeutral | Manifest",
        "[{SizeBefore: 0x18, In: 0x0}]",
        "2020-07-29T00:07:10.693592Z",
        "Wrapper<MS::Internal::Text::IDWriteTextAnalyzer>",
        "\"Static graph loaded\"",
        "if ($_.Kind -eq 1)\r\n{\r\n  $_.Name\r\n}",
        "",
    ] {
        assert_eq!(debug_text(ok), None, "{ok}");
    }
}

#[test]
fn no_field_of_any_real_trace_is_debug_text() {
    let Some(names) = testdata::real_trace_files() else {
        return;
    };
    assert!(names.len() >= 10, "{names:?}");
    let mut bad = Vec::new();
    for path in &names {
        let file = etl::EtlFile::open_many(&[path.as_path()])
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let t = model::build(&file);
        for i in 0..t.generic.len() {
            for (k, v) in t.generic_fields(i) {
                if let Some(why) = debug_text(&v).or_else(|| debug_text(&k)) {
                    if bad.len() < 20 {
                        bad.push(format!("{} row {i} ({why}): {k}={v}", path.display()));
                    }
                }
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// WinSAT's XML shows as the document itself (quotes not escaped): values
/// from dissect.util's LZNT1 as in `crates/etl/tests/winsat_real.rs`.
#[test]
fn winsat_xml_shows_as_plain_text() {
    let Some(dir) = real_traces_dir() else { return };
    let path = dir.join("perfview-selfdescribing-single.etl");
    let file = etl::EtlFile::open_many(&[path.as_path()]).unwrap();
    let t = model::build(&file);
    let docs: Vec<String> = (0..t.generic.len())
        .filter(|&i| t.generic_provider_text(i) == "WinSat")
        .flat_map(|i| t.generic_fields(i))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    assert_eq!(docs.len(), 3, "{docs:?}");
    assert!(docs[0].starts_with("xml=<WinSPR><SystemScore>8</SystemScore>"));
    assert!(docs[1].starts_with("xml=<Metrics><CPUMetrics><CompressionMetric units=\"MB/s\">"));
    assert!(docs[2].ends_with("</SystemConfig>"));
}
