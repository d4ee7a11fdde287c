//! A writer-made trace sampling inside fixtures/symbols/fixture.dll, whose
//! DbgID_RSDS records the fixture PDB's identity (fixture.identity.txt),
//! and the names llvm-pdbutil lists for the sampled RVAs
//! (fixture.functions.txt, derived by fixtures/symbols/build.sh).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use synth::image_samples::{write_image_samples, ImageWithPdb};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/symbols")
}

/// (GUID, age) of `pdb` (`fixture.pdb` or `variant/fixture.pdb`).
pub fn identity(pdb: &str) -> (etl::Guid, u32) {
    let text = std::fs::read_to_string(fixtures().join("fixture.identity.txt")).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{pdb} ")))
        .unwrap();
    let p: Vec<&str> = line.split(' ').collect();
    (etl::Guid::parse(p[1]).unwrap(), p[2].parse().unwrap())
}

/// The GUIDAGE directory name of symstore layout (GUID hex without dashes, age in hex).
pub fn symstore_key(pdb: &str) -> String {
    let (g, age) = identity(pdb);
    format!(
        "{}{age:X}",
        g.to_string().replace('-', "").to_ascii_uppercase()
    )
}

/// (start RVA, size, name) of each fixture function.
pub fn functions() -> Vec<(u32, u32, String)> {
    std::fs::read_to_string(fixtures().join("fixture.functions.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let p: Vec<&str> = l.splitn(4, ' ').collect();
            (
                u32::from_str_radix(p[0], 16).unwrap(),
                p[1].parse().unwrap(),
                p[3].to_string(),
            )
        })
        .collect()
}

/// One sample at the start, middle and last byte of every function, each
/// with the middle of the next function as caller. Returns the trace bytes
/// and the expected `Function` column: `fixture.dll!NAME` -> samples.
pub fn write() -> (Vec<u8>, BTreeMap<String, u64>) {
    let f = functions();
    let mut stacks = Vec::new();
    let mut want = BTreeMap::new();
    for (i, (rva, size, name)) in f.iter().enumerate() {
        let (nrva, nsize, _) = &f[(i + 1) % f.len()];
        for probe in [*rva, rva + size / 2, rva + size.max(&1) - 1] {
            stacks.push(vec![probe, nrva + nsize / 2]);
            *want.entry(format!("fixture.dll!{name}")).or_insert(0) += 1;
        }
    }
    let (guid, age) = identity("fixture.pdb");
    let image = ImageWithPdb {
        path: r"C:\fixture\fixture.dll".into(),
        base: 0x7FF8_1230_0000,
        // SizeOfImage of fixture.dll's PE header.
        size: 0x4000,
        pdb_guid: guid,
        pdb_age: age,
        pdb_path: r"C:\build\fixture.pdb".into(),
    };
    (write_image_samples(&image, &stacks).unwrap(), want)
}
