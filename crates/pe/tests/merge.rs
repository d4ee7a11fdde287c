//! `merge_identities` on a synthetic trace: two of its images are given the
//! bytes of the real fixture DLLs; read back by our reader and model, those
//! two (and only those) carry the fixtures' PDB identity and version strings.
//! Expected values come from the llvm dumps and the resource script.

use etl::EtlFile;
use pe::merge_identities;
use std::collections::HashMap;
use std::io::Cursor;
use std::path::PathBuf;
use synth::BenchParams;

fn fixture(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn text(rel: &str) -> String {
    String::from_utf8(fixture(rel)).unwrap()
}

/// `GUID AGE` of `name` in fixtures/symbols/fixture.identity.txt (llvm-pdbutil).
fn pdbutil_identity(name: &str) -> (String, u32) {
    let t = text("symbols/fixture.identity.txt");
    let l = t.lines().find(|l| l.starts_with(name)).unwrap();
    let f: Vec<&str> = l.split_whitespace().collect();
    (f[1].to_string(), f[2].parse().unwrap())
}

/// The value of `key:` in versioned.dump.txt's llvm-pdbutil summary.
fn versioned_summary(key: &str) -> String {
    let t = text("pe/versioned.dump.txt");
    let s = t.find("# llvm-pdbutil dump --summary").unwrap();
    t[s..]
        .lines()
        .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(": "))
        .unwrap()
        .trim_matches(|c| c == '{' || c == '}')
        .to_string()
}

fn rc_value(key: &str) -> String {
    let t = text("pe/versioned.rc");
    let prefix = format!("VALUE \"{key}\", \"");
    let l = t
        .lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .unwrap();
    l.trim_end_matches('"').replace("\\xae", "\u{ae}")
}

fn bench(compress: bool) -> Vec<u8> {
    let params = BenchParams {
        cpus: 2,
        samples: 400,
        distinct_stacks: 50,
        threads: 6,
        processes: 2,
        modules: 6,
        compress,
        ..BenchParams::default()
    };
    let (c, _) = synth::write_bench(Cursor::new(Vec::new()), &params).unwrap();
    c.into_inner()
}

fn check(compress: bool) {
    let original = EtlFile::from_bytes(bench(compress)).unwrap();
    let before = model::build(&original);
    // Two user-mode images, as the trace recorded their paths.
    let mut paths: Vec<String> = (0..before.images.len())
        .filter(|&i| !before.images.kernel[i])
        .map(|i| before.strings.get(before.images.path[i]).to_string())
        .collect();
    paths.sort();
    paths.dedup();
    let (clang_path, mingw_path) = (paths[0].clone(), paths[1].clone());
    // A third image's "file" is not a PE: it gets nothing and is reported.
    assert!(paths.len() >= 3, "{paths:?}");
    let junk_path = paths[2].clone();
    let files: HashMap<String, Vec<u8>> = [
        (clang_path.clone(), fixture("symbols/fixture.dll")),
        (mingw_path.clone(), fixture("pe/versioned.dll")),
        (junk_path.clone(), b"MZ but not a PE image".to_vec()),
    ]
    .into();
    let (out, summary) = merge_identities(&original, Cursor::new(Vec::new()), |p| {
        files.get(p).cloned()
    })
    .unwrap();
    assert!(summary.identified >= 2, "{summary:?}");
    assert_eq!(summary.bad_buffers, 0);
    let merged = EtlFile::from_bytes(out.into_inner()).unwrap();
    assert!(
        merged.diagnostics().is_empty(),
        "{:?}",
        merged.diagnostics()
    );
    let t = model::build(&merged);

    // Nothing of the original is lost or moved.
    assert_eq!(t.samples.len(), before.samples.len());
    assert_eq!(t.images.len(), before.images.len());
    assert_eq!(t.info.duration_ns, before.info.duration_ns);
    assert_eq!(
        t.info.events,
        before.info.events + summary.events_added,
        "every original event plus the added ones"
    );

    let m = &t.modules;
    let module_of = |path: &str| {
        let row = (0..t.images.len())
            .find(|&i| t.strings.get(t.images.path[i]) == path)
            .unwrap();
        t.images.module[row] as usize
    };
    let s = |id| t.strings.get(id).to_string();

    let a = module_of(&clang_path);
    let (guid, age) = pdbutil_identity("fixture.pdb");
    assert_eq!(
        m.pdb_guid[a].unwrap().to_string().to_ascii_uppercase(),
        guid
    );
    assert_eq!(m.pdb_age[a], age);
    assert_eq!(s(m.pdb_name[a]), "fixture.pdb");
    assert!(
        !m.has_version_info[a],
        "fixture.dll has no version resource"
    );

    let b = module_of(&mingw_path);
    assert_eq!(
        m.pdb_guid[b].unwrap().to_string().to_ascii_uppercase(),
        versioned_summary("GUID")
    );
    assert_eq!(m.pdb_age[b].to_string(), versioned_summary("Age"));
    assert_eq!(s(m.pdb_name[b]), "versioned.pdb");
    assert!(m.has_version_info[b]);
    assert_eq!(s(m.file_version[b]), rc_value("FileVersion"));
    assert_eq!(s(m.product_name[b]), rc_value("ProductName"));
    assert_eq!(s(m.company_name[b]), rc_value("CompanyName"));
    assert_eq!(s(m.file_description[b]), rc_value("FileDescription"));
    assert_eq!(s(m.product_version[b]), rc_value("ProductVersion"));
    assert_eq!(s(m.original_file_name[b]), rc_value("OriginalFilename"));

    // Every other module is as the original left it: no identity.
    for i in (0..m.len()).filter(|&i| i != a && i != b) {
        assert_eq!(m.pdb_guid[i], before.modules.pdb_guid[i], "module {i}");
        assert_eq!(m.has_version_info[i], before.modules.has_version_info[i]);
    }
    // Files that could not be had are reported, once each.
    let mut unreadable = summary.unreadable.clone();
    unreadable.dedup();
    assert_eq!(unreadable.len(), summary.unreadable.len());
    assert!(!summary.unreadable.contains(&clang_path));
    assert!(!summary.unreadable.contains(&mingw_path));
    assert!(summary.unreadable.contains(&junk_path));
}

#[test]
fn merged_identities_land_on_the_right_images() {
    check(false);
}

#[test]
fn merged_identities_land_on_the_right_images_in_a_compressed_trace() {
    check(true);
}

#[test]
fn a_damaged_trace_never_panics() {
    let good = bench(false);
    let files: HashMap<String, Vec<u8>> = HashMap::new();
    let mut rng = testdata::Rng::new(7);
    for _ in 0..40 {
        let mut b = good.clone();
        for _ in 0..16 {
            let i = rng.below(b.len());
            b[i] = rng.next_u64() as u8;
        }
        if let Ok(f) = EtlFile::from_bytes(b) {
            let _ = merge_identities(&f, Cursor::new(Vec::new()), |p| files.get(p).cloned());
        }
    }
}
