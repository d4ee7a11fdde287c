//! Regions files: the real one from UIforETW read completely, the
//! documented parts, and untrusted input refused with its line.

use std::path::PathBuf;

fn real_file() -> Option<PathBuf> {
    let dir = std::env::var_os("ETLSCOPE_WPA_FILES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/wpa-files")
        });
    let f = dir.join("uiforetw-chrome_regions_of_interest.xml");
    if f.exists() {
        return Some(f);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing",
        f.display()
    );
    eprintln!("SKIPPED: {} is missing", f.display());
    None
}

/// Opening tags `<NAME` followed by a space, newline or `>`, counted in the text.
fn count_tags(xml: &str, name: &str) -> usize {
    let pat = format!("<{name}");
    xml.match_indices(&pat)
        .filter(|(i, _)| {
            xml[i + pat.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_whitespace() || c == '>' || c == '/')
        })
        .count()
}

#[test]
fn uiforetw_chrome_regions_parse_completely() {
    let Some(path) = real_file() else { return };
    let xml = std::fs::read_to_string(&path).unwrap();
    let set = regions::parse(&xml).unwrap();
    let roots = count_tags(&xml, "RegionRoot");
    let regions_in_file = count_tags(&xml, "Region");
    assert_eq!(roots, 1);
    assert_eq!(set.regions.len(), roots + regions_in_file, "{set:#?}");
    assert!(set.notices.is_empty(), "{:?}", set.notices);
    let timed: Vec<_> = set.regions.iter().filter(|r| r.is_timed()).collect();
    assert_eq!(timed.len(), regions_in_file);
    for r in &timed {
        let start = r.start.as_ref().unwrap();
        assert_eq!(
            start.events[0].provider,
            "d2d578d9-2936-45b6-a09f-30e32715f42d"
        );
        assert_eq!(start.events[0].id, Some(1));
        assert_eq!(start.payload.len(), 1);
        assert!(r.matching.event.tid);
        assert_eq!(
            r.matching.event.payload,
            vec![("Name".to_string(), "Name".to_string())]
        );
        assert!(r.matching.self_nest.as_ref().is_some_and(|k| k.tid));
        assert_eq!(r.name_field.as_deref(), Some("Name"));
        assert_eq!(r.path[0], "Chrome");
    }
    assert_eq!(timed[0].path, vec!["Chrome", "Complete"]);
    assert_eq!(
        timed[1].start.as_ref().unwrap().payload[0],
        ("Phase".into(), "Begin".into())
    );
}

const DOCUMENTED: &str = r#"<?xml version='1.0' encoding='utf-8'?>
<InstrumentationManifest>
 <Instrumentation>
  <Regions>
   <RegionRoot Guid="{EFA7A927-BAE3-48F6-92E1-000000000000}" Name="Root">
    <Region Guid="{d8d639a0-cf4c-45fb-976a-000111000100}" Name="Outer" FriendlyName="Outer region">
     <Start><Event Provider="{dbe9b383-7cf3-4331-91cc-a3cb16a3b538}" Id="301" Version="0" Opcode="1"/></Start>
     <Stop><Event Provider="{331c3b3a-2005-44c2-ac5e-77220c37d6b4}" Id="22" Version="0"/></Stop>
     <Match>
      <Event PID="true" ActivityID="true"><Payload FieldName="A" TargetFieldName="B"/></Event>
     </Match>
     <Region Guid="{d8d639a0-cf4c-45fb-976a-000111000101}" Name="Inner">
      <Start><Duration Provider="{dbe9b383-7cf3-4331-91cc-a3cb16a3b538}" Id="5" Duration="Took" Multiplier="100"/></Start>
      <Parent Region="{d8d639a0-cf4c-45fb-976a-000111000100}"/>
      <Match><Parent TID="true"/></Match>
      <Metadata>x</Metadata>
     </Region>
    </Region>
   </RegionRoot>
  </Regions>
 </Instrumentation>
</InstrumentationManifest>"#;

#[test]
fn documented_parts_are_read() {
    let set = regions::parse(DOCUMENTED).unwrap();
    assert_eq!(set.regions.len(), 3);
    let outer = &set.regions[1];
    assert_eq!(outer.path, vec!["Root", "Outer region"]);
    assert_eq!(outer.container, Some(0));
    assert_eq!(outer.start.as_ref().unwrap().events[0].opcode, Some(1));
    assert!(outer.matching.event.pid && outer.matching.event.activity);
    assert_eq!(outer.matching.event.payload, vec![("A".into(), "B".into())]);
    let inner = &set.regions[2];
    assert!(inner.is_timed());
    assert_eq!(inner.container, Some(1));
    let d = inner.start.as_ref().unwrap().duration.as_ref().unwrap();
    assert_eq!((d.field.as_str(), d.multiplier), ("Took", 100));
    assert_eq!(
        inner.parent.as_deref(),
        Some("d8d639a0-cf4c-45fb-976a-000111000100")
    );
    assert!(inner.matching.parent.tid);
    // Unknown elements load with a notice naming them and their line.
    assert_eq!(
        set.notices,
        vec!["line 16: <Metadata> in <Region> is not read".to_string()]
    );
}

#[test]
fn bad_files_name_their_line() {
    let e = regions::parse("<Nope/>").unwrap_err();
    assert_eq!(e.line, 1);
    let e = regions::parse(&DOCUMENTED.replace("Id=\"22\"", "Id=\"x\"")).unwrap_err();
    assert_eq!(
        (e.line, e.message.as_str()),
        (8, "Id=\"x\" is not a number in range")
    );
    let e = regions::parse(&DOCUMENTED.replace("{331c3b3a-2005-44c2-ac5e-77220c37d6b4}", "nope"))
        .unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    let e = regions::parse(&DOCUMENTED.replace("<Stop><Event Provider=\"{331c3b3a-2005-44c2-ac5e-77220c37d6b4}\" Id=\"22\" Version=\"0\"/></Stop>", "")).unwrap_err();
    assert!(e.message.contains("no <Stop>"), "{e}");
    let e = regions::parse("<InstrumentationManifest><Instrumentation><Regions><Region Guid='{00000000-0000-0000-0000-000000000000}' Name='x'><Start><Event Provider='{00000000-0000-0000-0000-000000000000}'/></Start><Stop><Event Provider='{00000000-0000-0000-0000-000000000000}'/></Stop><Parent Region='{00000000-0000-0000-0000-000000000001}'/></Region></Regions></Instrumentation></InstrumentationManifest>").unwrap_err();
    assert!(e.message.contains("does not define"), "{e}");
    let e = regions::parse("<a><b").unwrap_err();
    assert!(e.message.starts_with("not well-formed XML"), "{e}");
}

#[test]
fn bounded() {
    // Nesting past the bound is refused, not recursed into.
    let depth = regions::MAX_DEPTH + 5;
    let mut xml = String::from("<InstrumentationManifest><Instrumentation><Regions>");
    for i in 0..depth {
        xml.push_str(&format!(
            "<Region Guid='{{00000000-0000-0000-0000-{i:012}}}' Name='r{i}'>"
        ));
    }
    xml.push_str(&"</Region>".repeat(depth));
    xml.push_str("</Regions></Instrumentation></InstrumentationManifest>");
    let e = regions::parse(&xml).unwrap_err();
    assert!(e.message.contains("deeper"), "{e}");
    // Too large, and too many nodes.
    let big = " ".repeat(regions::MAX_BYTES + 1);
    assert!(regions::parse(&big).unwrap_err().message.contains("bytes"));
    let many = format!(
        "<InstrumentationManifest>{}</InstrumentationManifest>",
        "<x/>".repeat(regions::MAX_NODES as usize)
    );
    assert!(regions::parse(&many).is_err());
}

/// The most regions a file may hold, one per line, each with its line: the
/// line of a node is a lookup, not a scan of the text before it (scanning
/// made this file take seconds).
#[test]
fn the_most_regions_keep_their_lines() {
    let mut xml = String::from("<InstrumentationManifest><Instrumentation><Regions>\n");
    let event = "<Event Provider='{00000000-0000-0000-0000-000000000000}' Id='1'/>";
    for i in 0..regions::MAX_REGIONS {
        xml.push_str(&format!(
            "<Region Guid='{{00000000-0000-0000-0000-{i:012}}}' Name='r{i}'><Start>{event}</Start><Stop>{event}</Stop></Region>\n"
        ));
    }
    xml.push_str("</Regions></Instrumentation></InstrumentationManifest>");
    assert!(xml.len() < regions::MAX_BYTES);
    let set = regions::parse(&xml).expect("parses");
    assert_eq!(set.regions.len(), regions::MAX_REGIONS);
    let lines: Vec<u32> = set.regions.iter().map(|r| r.line).collect();
    let want: Vec<u32> = (2..2 + regions::MAX_REGIONS as u32).collect();
    assert_eq!(lines, want);
}
