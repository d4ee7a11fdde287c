//! `.etl.zip` and `.diagsession` containers built at test time from the real
//! traces: they must read with the same census as the bare .etl (expected
//! values from the Python reference decoder, see `expected/mod.rs`), and
//! broken containers must be refused with a clear error.

mod common;
mod expected;

use common::zips::{read, zip_of};
use common::{real_trace, real_traces_dir, TempDir};
use etl::census::Census;
use etl::{Error, EtlFile};
use expected::{Expected, TRACES};

fn assert_census(file: &EtlFile, e: &Expected, what: &str) {
    let c = Census::of(file);
    assert_eq!(c.skipped_buffers, 0, "{what}: skipped");
    assert!(c.errors.is_empty(), "{what}: {:?}", c.errors);
    assert_eq!(
        (c.buffers, c.compressed_buffers, c.events),
        (e.buffers, e.compressed_buffers, e.events),
        "{what}: buffers, compressed, events"
    );
    let hooks: u64 = e.kernel_hooks.iter().map(|h| h.2).sum();
    assert_eq!(c.kernel_hooks.values().sum::<u64>(), hooks, "{what}: hooks");
    assert_eq!(c.max_timestamp, Some(e.max_timestamp), "{what}: max ts");
}

fn container_error(r: Result<EtlFile, Error>) -> String {
    match r {
        Ok(_) => panic!("a broken container was accepted"),
        Err(Error::Container(m)) => {
            eprintln!("refused: {m}");
            m
        }
        Err(e) => panic!("expected a container error, got {e}"),
    }
}

/// PerfView's `.etl.zip`: the .etl deflated at the root of the archive.
#[test]
fn etl_zip_reads_like_the_etl() {
    let Some(dir) = real_traces_dir() else { return };
    let tmp = TempDir::new("etlzip");
    for e in TRACES {
        let etl = read(&real_trace(&dir, e.file));
        let zip = zip_of(&[(e.file, &etl, true)]);
        let path = tmp.write(&format!("{}.zip", e.file), &zip);
        let file = EtlFile::open(&path).unwrap_or_else(|err| panic!("{}: {err}", e.file));
        assert_eq!(file.container_member(), Some(e.file));
        assert_census(&file, e, &format!("{}.zip", e.file));
        let file = EtlFile::from_bytes(zip).unwrap();
        assert_census(&file, e, &format!("{}.zip in memory", e.file));
    }
}

/// Visual Studio's `.diagsession`: a zip whose .etl sits in a subfolder next
/// to metadata and other members (stored, not deflated, here).
#[test]
fn diagsession_reads_like_the_etl() {
    let Some(dir) = real_traces_dir() else { return };
    let tmp = TempDir::new("diagsession");
    for name in ["perfview-net452-x64.etl", "shutdown-perfdiag-kernel.etl"] {
        let e = TRACES.iter().find(|e| e.file == name).unwrap();
        let etl = read(&real_trace(&dir, name));
        let member = "3f2a9c1e-0b7d-4e55-9a61-2d8c7e4b1f00/sc.user_aux.etl";
        let zip = zip_of(&[
            (
                "[Content_Types].xml",
                b"<?xml version=\"1.0\"?><Types/>",
                true,
            ),
            ("metadata.xml", b"<DiagnosticsHub/>", true),
            (
                "3f2a9c1e-0b7d-4e55-9a61-2d8c7e4b1f00/notes.txt",
                b"not a trace",
                false,
            ),
            (member, &etl, false),
        ]);
        let path = tmp.write(&format!("{name}.diagsession"), &zip);
        let file = EtlFile::open(&path).unwrap_or_else(|err| panic!("{name}: {err}"));
        assert_eq!(file.container_member(), Some(member));
        assert_census(&file, e, &format!("{name}.diagsession"));
    }
}

#[test]
fn zip_without_etl_is_refused() {
    let tmp = TempDir::new("noetl");
    let zip = zip_of(&[
        ("readme.txt", b"no trace here", true),
        ("trace.etl.bak", b"not it either", false),
    ]);
    let path = tmp.write("noetl.etl.zip", &zip);
    let m = container_error(EtlFile::open(&path));
    assert!(m.contains("no .etl"), "{m}");
    // An empty archive is just the end-of-central-directory record.
    let m = container_error(EtlFile::from_bytes(zip_of(&[])));
    assert!(m.contains("no .etl"), "{m}");
}

#[test]
fn truncated_zip_is_refused() {
    let Some(dir) = real_traces_dir() else { return };
    let etl = read(&real_trace(&dir, "shutdown-perfdiag-kernel.etl"));
    let zip = zip_of(&[("shutdown.etl", &etl, true)]);
    let tmp = TempDir::new("truncated");
    for keep in [zip.len() - 1, zip.len() - 30, zip.len() / 2, 100, 4] {
        let path = tmp.write("cut.etl.zip", &zip[..keep]);
        let m = container_error(EtlFile::open(&path));
        assert!(m.contains("zip"), "cut at {keep}: {m}");
    }
}

/// A member whose data is damaged (so the CRC or the deflate stream fails)
/// is refused, not returned half-read.
#[test]
fn corrupt_member_is_refused() {
    let Some(dir) = real_traces_dir() else { return };
    let etl = read(&real_trace(&dir, "lxcore-manifest.etl"));
    let mut zip = zip_of(&[("lx.etl", &etl, false)]);
    // Stored member: data starts after the 30-byte local header and name.
    let at = 30 + "lx.etl".len() + 0x100;
    zip[at] ^= 0xFF;
    let m = container_error(EtlFile::from_bytes(zip));
    assert!(m.contains("lx.etl"), "{m}");
}

/// (container, member, buffers, compressed, events, max timestamp).
type ContainerMember = (&'static str, &'static str, u32, u32, u64, i64);

/// The real containers of the field: every `.etl` member is read, the trace
/// is all of them (a .diagsession's four sessions are one recording), with
/// each member's buffers and events as the reference decoder counts them on
/// the member extracted by Python's zipfile (`CONTAINER_MEMBERS`).
#[test]
fn real_containers_read_every_member_as_one_trace() {
    let Some(dir) = real_traces_dir() else { return };
    let mut names: Vec<&str> = expected::CONTAINER_MEMBERS.iter().map(|m| m.0).collect();
    names.dedup();
    assert!(!names.is_empty(), "no container in the expected table");
    for name in names {
        let want: Vec<_> = expected::CONTAINER_MEMBERS
            .iter()
            .filter(|m| m.0 == name)
            .collect();
        let file = EtlFile::open(&real_trace(&dir, name)).unwrap();
        let c = Census::of(&file);
        assert_eq!(c.skipped_buffers, 0, "{name}");
        assert!(c.errors.is_empty(), "{name}: {:?}", c.errors);
        let members = file.members();
        let got: Vec<(&str, u32)> = members
            .iter()
            .map(|m| (m.name.as_str(), m.buffers))
            .collect();
        let expect: Vec<(&str, u32)> = want.iter().map(|m| (m.1, m.2)).collect();
        assert_eq!(got, expect, "{name}: members");
        let sum = |f: fn(&&ContainerMember) -> u64| want.iter().map(f).sum::<u64>();
        assert_eq!(
            u64::from(c.buffers),
            sum(|m| u64::from(m.2)),
            "{name}: buffers"
        );
        assert_eq!(
            u64::from(c.compressed_buffers),
            sum(|m| u64::from(m.3)),
            "{name}: compressed"
        );
        assert_eq!(c.events, sum(|m| m.4), "{name}: events");
        let max = want.iter().map(|m| m.5).max();
        assert_eq!(c.max_timestamp, max, "{name}: max timestamp");
        // Events in time order across members: each one once.
        let mut n = 0u64;
        let mut last = i64::MIN;
        let diags = file.for_each_event_in_order(|e| {
            assert!(e.timestamp >= last, "{name}: out of order");
            last = e.timestamp;
            n += 1;
        });
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert_eq!(n, c.events, "{name}: ordered events");
    }
}

/// Several files given together are one trace; one that cannot be read
/// costs only itself, and the diagnostic names it.
#[test]
fn files_given_together_are_one_trace_and_a_bad_one_costs_only_itself() {
    let Some(dir) = real_traces_dir() else { return };
    let a = TRACES
        .iter()
        .find(|e| e.file == "perfview-gcevents.etl")
        .unwrap();
    let b = TRACES
        .iter()
        .find(|e| e.file == "amsi-manifest.etl")
        .unwrap();
    let tmp = TempDir::new("together");
    let bad = tmp.write("bad.etl", b"not a trace at all, just some bytes");
    let pa = real_trace(&dir, a.file);
    let pb = real_trace(&dir, b.file);
    let file = EtlFile::open_many(&[pa.as_path(), bad.as_path(), pb.as_path()]).unwrap();
    let c = Census::of(&file);
    assert_eq!(c.events, a.events + b.events);
    assert_eq!(c.buffers, a.buffers + b.buffers);
    let names: Vec<String> = file.members().into_iter().map(|m| m.name).collect();
    assert_eq!(names, [a.file, b.file]);
    assert!(
        file.diagnostics()
            .iter()
            .any(|d| d.message.starts_with("bad.etl is not read")),
        "{:?}",
        file.diagnostics()
    );
    // No readable member at all: the error of the first.
    assert!(EtlFile::open_many(&[bad.as_path()]).is_err());

    // The same in a zip: a damaged member is refused, the other is read.
    let good = read(&pa);
    let mut broken = read(&pb);
    broken.truncate(40);
    let zip = zip_of(&[("a.etl", &good, true), ("b.etl", &broken, true)]);
    let file = EtlFile::from_bytes(zip).unwrap();
    assert_eq!(Census::of(&file).events, a.events);
    assert!(file
        .diagnostics()
        .iter()
        .any(|d| d.message.starts_with("b.etl is not read")));
}

/// A broken container given among separate files is one refused member
/// too, and `open_many_spilling` (the server's reading, members inflated to
/// scratch files) reads the same trace as `open_many`.
#[test]
fn a_broken_container_among_files_costs_only_itself() {
    let Some(dir) = real_traces_dir() else { return };
    let a = TRACES
        .iter()
        .find(|e| e.file == "perfview-gcevents.etl")
        .unwrap();
    let b = TRACES
        .iter()
        .find(|e| e.file == "amsi-manifest.etl")
        .unwrap();
    let tmp = TempDir::new("together-zip");
    let pa = real_trace(&dir, a.file);
    let zip = zip_of(&[("b.etl", &read(&real_trace(&dir, b.file)), true)]);
    let zipped = tmp.write("b.etl.zip", &zip);
    let cut = tmp.write("cut.etl.zip", &zip[..zip.len() / 2]);
    let paths = [pa.as_path(), cut.as_path(), zipped.as_path()];
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    for file in [
        EtlFile::open_many(&paths).unwrap(),
        EtlFile::open_many_spilling(&paths, &scratch).unwrap(),
    ] {
        assert_eq!(Census::of(&file).events, a.events + b.events);
        let names: Vec<String> = file.members().into_iter().map(|m| m.name).collect();
        assert_eq!(names, [a.file, "b.etl"]);
        assert!(
            file.diagnostics()
                .iter()
                .any(|d| d.message.starts_with("cut.etl.zip is not read")),
            "{:?}",
            file.diagnostics()
        );
    }
    // The scratch files are unlinked once mapped.
    assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
}
