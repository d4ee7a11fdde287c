//! The `hostile-names` synthetic trace: every string the UI shows is HTML.
//! The model must carry each one byte for byte (no escaping, trimming or
//! lossy decoding: the UI is the one place that must render them as text).
//! Expected values are the strings the scenario wrote; the only derived one
//! is the file path, mapped by hand from `\Device\HarddiskVolume3` to `C:`
//! as the trace's VolumeMapping says.

use etl::EtlFile;
use model::{Trace, NONE};
use std::io::Cursor;
use synth::hostile_names as h;

fn trace() -> Trace {
    let (cursor, _) = synth::write_hostile_names(Cursor::new(Vec::new())).unwrap();
    let file = EtlFile::from_bytes(cursor.into_inner()).unwrap();
    model::build(&file)
}

fn s(t: &Trace, id: model::strings::StrId) -> &str {
    t.strings.get(id)
}

#[test]
fn processes_threads_and_command_lines_are_byte_exact() {
    let t = trace();
    let p = &t.processes;
    let row = |pid: u32| (0..p.len()).find(|&i| p.pid[i] == pid).unwrap();
    let (a, b) = (row(h::PID), row(h::OTHER_PID));
    assert_eq!(s(&t, p.name[a]), h::PROCESS_NAME);
    assert_eq!(s(&t, p.command_line[a]), h::COMMAND_LINE);
    assert_eq!(s(&t, p.name[b]), h::OTHER_PROCESS_NAME);
    assert_eq!(s(&t, p.command_line[b]), h::OTHER_COMMAND_LINE);
    assert_eq!(
        t.process_label(a as u32),
        format!("{} ({})", h::PROCESS_NAME, h::PID)
    );
    let th = &t.threads;
    let named = (0..th.len()).find(|&i| th.tid[i] == h::TID).unwrap();
    assert_eq!(s(&t, th.name[named]), h::THREAD_NAME);
}

#[test]
fn module_names_and_paths_are_byte_exact() {
    let t = trace();
    let m = &t.modules;
    let paths: Vec<&str> = (0..m.name.len()).map(|i| s(&t, m.path[i])).collect();
    // Modules show the DOS form (the writer maps \Device\HarddiskVolume3 to
    // C:); each load keeps the path it recorded.
    let other_dos = h::OTHER_MODULE_PATH.replace(r"\Device\HarddiskVolume3", "C:");
    for want in [h::EXE_PATH, h::MODULE_PATH, other_dos.as_str()] {
        assert!(paths.contains(&want), "{want} not in {paths:?}");
    }
    let recorded: Vec<&str> = (0..t.images.len())
        .map(|i| s(&t, t.images.path[i]))
        .collect();
    assert!(recorded.contains(&h::OTHER_MODULE_PATH), "{recorded:?}");
    let names: Vec<&str> = (0..m.name.len()).map(|i| s(&t, m.name[i])).collect();
    assert!(names.contains(&h::MODULE_NAME), "{names:?}");
    assert!(names.contains(&h::OTHER_MODULE_NAME), "{names:?}");
    // Frames in the DLL are `module!0xRVA` (no PDB); JIT frames `namespace::name`.
    let jit = format!("{}::{}", h::JIT_NAMESPACE, h::JIT_METHOD);
    let labels: std::collections::BTreeSet<String> = (0..t.frames.len() as u32)
        .map(|f| t.frame_label(f))
        .collect();
    assert!(labels.contains(&jit), "{labels:?}");
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with(&format!("{}!0x", h::MODULE_NAME))),
        "{labels:?}"
    );
    assert_eq!(t.samples.time.len(), h::SAMPLES as usize);
    assert!(t.samples.stack.iter().all(|&st| st != NONE));
}

#[test]
fn file_paths_and_generic_names_are_byte_exact() {
    let t = trace();
    assert_eq!(
        h::FILE_PATH,
        r#"C:\evil\<img src=x onerror="window.__pwned=11">&amp;.txt"#
    );
    let f = &t.file_io;
    let paths: std::collections::BTreeSet<&str> = f.path.iter().map(|&p| s(&t, p)).collect();
    assert_eq!(
        paths,
        [h::FILE_PATH, h::OTHER_FILE_PATH].into_iter().collect()
    );
    // One create every 20 samples.
    assert_eq!(f.len(), (h::SAMPLES / 20) as usize);
    assert!(f.stack.iter().all(|&st| st != NONE));
    let g = &t.generic;
    let providers: Vec<&str> = g.providers.name.iter().map(|&n| s(&t, n)).collect();
    assert!(providers.contains(&h::TL_PROVIDER), "{providers:?}");
    let names: std::collections::BTreeSet<&str> = g.name.iter().map(|&n| s(&t, n)).collect();
    assert!(names.contains(h::TL_EVENT), "{names:?}");
}
