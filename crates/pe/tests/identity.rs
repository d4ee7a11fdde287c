//! The PE reader on real PE files built here: every expected value comes
//! from llvm-readobj / llvm-pdbutil output committed beside the fixture, or
//! from the resource script the fixture was compiled from.

use pe::read_identity;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn text(rel: &str) -> String {
    String::from_utf8(read(rel)).unwrap()
}

/// The value after `key: ` on the first line of `dump` (after `from`) with it.
fn field<'a>(dump: &'a str, from: &str, key: &str) -> &'a str {
    let start = dump.find(from).unwrap_or_else(|| panic!("no {from}"));
    dump[start..]
        .lines()
        .find_map(|l| l.trim().strip_prefix(key)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no {key}"))
}

/// llvm-readobj's `(63 60 D6 ...)`: the GUID's bytes as the file stores them.
fn guid_bytes(s: &str) -> Vec<u8> {
    s.trim_matches(|c| c == '(' || c == ')')
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

/// `... (0x565F6DA3)` -> 0x565F6DA3.
fn hex_in_parens(s: &str) -> u32 {
    let h = s.rsplit("(0x").next().unwrap().trim_end_matches(')');
    u32::from_str_radix(h, 16).unwrap()
}

fn check_against_readobj(dll: &str, dump_file: &str, pdbutil_summary: &str) {
    let dump = text(dump_file);
    let readobj = "# llvm-readobj --file-headers --coff-debug-directory";
    let id = read_identity(&read(dll)).unwrap();
    let pdb = id.pdb.as_ref().expect("an RSDS record");
    assert_eq!(
        pdb.guid.to_bytes_le().to_vec(),
        guid_bytes(field(&dump, readobj, "PDBGUID"))
    );
    assert_eq!(pdb.age.to_string(), field(&dump, readobj, "PDBAge"));
    assert_eq!(pdb.path, field(&dump, readobj, "PDBFileName"));
    assert_eq!(
        id.time_date_stamp,
        hex_in_parens(field(&dump, readobj, "TimeDateStamp"))
    );
    assert_eq!(
        id.size_of_image.to_string(),
        field(&dump, readobj, "SizeOfImage")
    );
    // llvm-pdbutil prints the GUID in its registry form: the same identity.
    let g = field(&dump, pdbutil_summary, "GUID").trim_matches(|c| c == '{' || c == '}');
    assert_eq!(pdb.guid.to_string().to_ascii_uppercase(), g);
}

#[test]
fn clang_fixture_pdb_identity_equals_llvm_readobj() {
    check_against_readobj(
        "symbols/fixture.dll",
        "symbols/fixture.dump.txt",
        "# llvm-pdbutil dump --summary --publics",
    );
    // No version resource in that DLL.
    assert_eq!(
        read_identity(&read("symbols/fixture.dll")).unwrap().version,
        None
    );
}

#[test]
fn mingw_fixture_pdb_identity_equals_llvm_readobj() {
    check_against_readobj(
        "pe/versioned.dll",
        "pe/versioned.dump.txt",
        "# llvm-pdbutil dump --summary",
    );
}

/// `VALUE "Key", "Value"` lines of the resource script (code page 1252:
/// `\xae` is U+00AE).
fn rc_values() -> Vec<(String, String)> {
    text("pe/versioned.rc")
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("VALUE \"")?;
            let (k, v) = rest.split_once("\", \"")?;
            let v = v.strip_suffix('"')?.replace("\\xae", "\u{ae}");
            Some((k.to_string(), v))
        })
        .collect()
}

#[test]
fn version_strings_equal_the_resource_script() {
    let values = rc_values();
    let want = |k: &str| {
        values
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("{k} not in versioned.rc"))
    };
    let v = read_identity(&read("pe/versioned.dll"))
        .unwrap()
        .version
        .expect("a version resource");
    assert_eq!(v.file_version, want("FileVersion"));
    assert_eq!(v.product_version, want("ProductVersion"));
    assert_eq!(v.product_name, want("ProductName"));
    assert_eq!(v.company_name, want("CompanyName"));
    assert_eq!(v.file_description, want("FileDescription"));
    assert_eq!(v.original_file_name, want("OriginalFilename"));
    assert_eq!(v.product_name, "etlscope\u{ae} test images");
    // `FILEVERSION 3,14,159,26` and `VALUE "Translation", 0x409, 1200` of
    // the script, as xperf prints them (BinFileVersion, VerLanguage).
    let rc = text("pe/versioned.rc");
    let fixed = rc
        .lines()
        .find_map(|l| l.trim().strip_prefix("FILEVERSION "))
        .unwrap()
        .replace(',', ".");
    assert_eq!(v.bin_file_version, fixed);
    let lang = rc
        .lines()
        .find_map(|l| l.trim().strip_prefix("VALUE \"Translation\", 0x"))
        .and_then(|t| t.split(',').next())
        .map(|h| u16::from_str_radix(h, 16).unwrap())
        .unwrap();
    assert_eq!(v.language, lang.to_string());
}

#[test]
fn version_strings_are_where_a_naive_utf16_search_finds_them() {
    // Independent of pelite's parser: in a VS_VERSIONINFO String the value
    // follows its key's NUL and padding to 4 bytes.
    let bytes = read("pe/versioned.dll");
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let v = read_identity(&bytes).unwrap().version.unwrap();
    for (key, got) in [
        ("FileVersion", &v.file_version),
        ("CompanyName", &v.company_name),
    ] {
        let mut needle = utf16(key);
        needle.extend_from_slice(&[0, 0]);
        let at = bytes
            .windows(needle.len())
            .position(|w| w == needle.as_slice())
            .unwrap();
        let mut p = at + needle.len();
        p = (p + 3) & !3;
        let value: Vec<u16> = bytes[p..]
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        assert_eq!(&String::from_utf16(&value).unwrap(), got, "{key}");
    }
}

#[test]
fn damaged_files_never_panic() {
    let good = read("pe/versioned.dll");
    for n in (0..good.len()).step_by(97) {
        let _ = read_identity(&good[..n]);
    }
    let mut rng = testdata::Rng::new(18);
    for _ in 0..2000 {
        let mut b = good.clone();
        for _ in 0..1 + rng.below(8) {
            let i = rng.below(b.len());
            b[i] = rng.next_u64() as u8;
        }
        let _ = read_identity(&b);
    }
    assert!(read_identity(b"MZ not a PE").is_err());
}
