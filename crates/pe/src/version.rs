//! VS_VERSIONINFO: the tree of the version resource. Each node is
//! `u16 wLength, u16 wValueLength, u16 wType, UTF-16 key, NUL`, padding to
//! 4 bytes, the value, padding to 4, then child nodes up to wLength.
//! Offsets are relative to the resource start, which is 4-aligned.

use etl::le::u16_at;

/// StringFileInfo values of the version resource (empty when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionStrings {
    pub file_version: String,
    pub product_version: String,
    pub product_name: String,
    pub company_name: String,
    pub file_description: String,
    pub original_file_name: String,
    /// VS_FIXEDFILEINFO's file version as "a.b.c.d" (empty without it).
    pub bin_file_version: String,
    /// The translation's language id in decimal ("1033"); "0" without one.
    pub language: String,
}

struct Node<'a> {
    key: String,
    /// From the value's start to the node's end (children included).
    value: &'a [u8],
    /// Where the value starts and the node ends, in `data`.
    value_at: usize,
    end: usize,
    value_len: usize,
    text: bool,
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// UTF-16 up to the first NUL (or the end): the string and the bytes it took.
fn utf16z(b: &[u8]) -> (String, usize) {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    (String::from_utf16_lossy(&units), 2 * units.len() + 2)
}

fn node(data: &[u8], at: usize, limit: usize) -> Option<Node<'_>> {
    let len = u16_at(data, at)? as usize;
    let value_len = u16_at(data, at + 2)? as usize;
    let text = u16_at(data, at + 4)? == 1;
    let end = at.checked_add(len)?.min(limit).min(data.len());
    if len < 6 || end <= at + 6 {
        return None;
    }
    let (key, n) = utf16z(data.get(at + 6..end)?);
    let value_at = align4(at + 6 + n).min(end);
    Some(Node {
        key,
        value: data.get(value_at..end)?,
        value_at,
        end,
        value_len,
        text,
    })
}

/// The children of a node whose value is `value_bytes` long.
fn children<'a>(data: &'a [u8], n: &Node<'_>, value_bytes: usize) -> Vec<Node<'a>> {
    let mut out = Vec::new();
    let mut at = align4(n.value_at + value_bytes);
    while at < n.end {
        let Some(c) = node(data, at, n.end) else {
            break;
        };
        at = align4(c.end);
        out.push(c);
    }
    out
}

/// The strings of the translation Windows shows (the first one listed), or
/// of the first string table when the translation list is missing.
pub fn version_strings(data: &[u8]) -> Option<VersionStrings> {
    let root = node(data, 0, data.len())?;
    if root.key != "VS_VERSION_INFO" {
        return None;
    }
    // The root's value is VS_FIXEDFILEINFO, wValueLength bytes.
    let top = children(data, &root, root.value_len);
    let bin_file_version = fixed_file_version(root.value.get(..root.value_len).unwrap_or(&[]));
    let translation_ids = top
        .iter()
        .filter(|n| n.key == "VarFileInfo")
        .flat_map(|n| children(data, n, 0))
        .find(|n| n.key == "Translation")
        .and_then(|t| Some((u16_at(t.value, 0)?, u16_at(t.value, 2)?)));
    let translation = translation_ids.map(|(lang, cp)| format!("{lang:04x}{cp:04x}"));
    let tables: Vec<Node<'_>> = top
        .iter()
        .filter(|n| n.key == "StringFileInfo")
        .flat_map(|n| children(data, n, 0))
        .collect();
    let table = translation
        .and_then(|t| tables.iter().find(|n| n.key.eq_ignore_ascii_case(&t)))
        .or_else(|| tables.first())?;
    let mut v = VersionStrings {
        bin_file_version,
        language: translation_ids.map_or(0, |(lang, _)| lang).to_string(),
        ..VersionStrings::default()
    };
    for s in children(data, table, 0) {
        // The value is text up to its NUL whatever unit wValueLength counts.
        let value = if s.text || s.value_len > 0 {
            utf16z(s.value).0
        } else {
            String::new()
        };
        let slot = match s.key.as_str() {
            "FileVersion" => &mut v.file_version,
            "ProductVersion" => &mut v.product_version,
            "ProductName" => &mut v.product_name,
            "CompanyName" => &mut v.company_name,
            "FileDescription" => &mut v.file_description,
            "OriginalFilename" => &mut v.original_file_name,
            _ => continue,
        };
        *slot = value;
    }
    Some(v)
}

/// dwFileVersionMS / LS of VS_FIXEDFILEINFO (signature 0xFEEF04BD).
fn fixed_file_version(fixed: &[u8]) -> String {
    let word = |off| etl::le::u32_at(fixed, off);
    match (word(0), word(8), word(12)) {
        (Some(0xFEEF_04BD), Some(ms), Some(ls)) => {
            format!("{}.{}.{}.{}", ms >> 16, ms & 0xFFFF, ls >> 16, ls & 0xFFFF)
        }
        _ => String::new(),
    }
}
