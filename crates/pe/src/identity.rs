//! What a PE file says about itself: header fields, the CodeView (RSDS)
//! debug record and the version resource's strings. Headers and resources
//! are read with `object`; the version resource is decoded in `version`.

use crate::version::{version_strings, VersionStrings};
use etl::Guid;
use object::pe::{ImageNtHeaders32, ImageNtHeaders64, RT_VERSION};
use object::read::pe::{
    ImageNtHeaders, ImageOptionalHeader, PeFile, ResourceDirectoryEntryData, ResourceNameOrId,
};
use object::{FileKind, LittleEndian as LE, Object};

/// The PDB a PE file was linked with (its RSDS CodeView record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdbRecord {
    pub guid: Guid,
    pub age: u32,
    /// As the linker wrote it: a full path or a bare name.
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub time_date_stamp: u32,
    pub size_of_image: u32,
    pub checksum: u32,
    pub pdb: Option<PdbRecord>,
    pub version: Option<VersionStrings>,
}

/// Read a PE file's identity. Fails only when the headers do not parse; a
/// missing or damaged debug directory or version resource is `None`.
pub fn read_identity(bytes: &[u8]) -> Result<Identity, String> {
    match FileKind::parse(bytes) {
        Ok(FileKind::Pe32) => identity::<ImageNtHeaders32>(bytes),
        Ok(FileKind::Pe64) => identity::<ImageNtHeaders64>(bytes),
        Ok(k) => Err(format!("not a PE image ({k:?})")),
        Err(e) => Err(format!("not a PE image: {e}")),
    }
}

fn identity<Pe: ImageNtHeaders>(bytes: &[u8]) -> Result<Identity, String> {
    let pe = PeFile::<Pe>::parse(bytes).map_err(|e| format!("bad PE headers: {e}"))?;
    let nt = pe.nt_headers();
    let pdb = pe.pdb_info().ok().flatten().map(|cv| PdbRecord {
        guid: Guid::from_bytes_le(cv.guid()),
        age: cv.age(),
        path: String::from_utf8_lossy(cv.path()).into_owned(),
    });
    Ok(Identity {
        time_date_stamp: nt.file_header().time_date_stamp.get(LE),
        size_of_image: nt.optional_header().size_of_image(),
        checksum: nt.optional_header().check_sum(),
        pdb,
        version: version_resource(&pe).and_then(version_strings),
    })
}

/// The first RT_VERSION resource's bytes (type / name / language levels).
fn version_resource<'a, Pe: ImageNtHeaders>(pe: &PeFile<'a, Pe>) -> Option<&'a [u8]> {
    let sections = pe.section_table();
    let rsrc = pe
        .data_directories()
        .resource_directory(pe.data(), &sections)
        .ok()??;
    let types = rsrc.root().ok()?;
    let version = types
        .entries
        .iter()
        .find(|e| matches!(e.name_or_id(), ResourceNameOrId::Id(RT_VERSION)))?;
    // Two table levels (name, then language) down to the data entry.
    let mut entry = version.data(rsrc).ok()?;
    for _ in 0..2 {
        entry = match entry {
            ResourceDirectoryEntryData::Table(t) => t.entries.first()?.data(rsrc).ok()?,
            ResourceDirectoryEntryData::Data(_) => break,
        };
    }
    let data = entry.data()?;
    let rva = data.offset_to_data.get(LE);
    let size = data.size.get(LE) as usize;
    sections.pe_data_at(pe.data(), rva)?.get(..size)
}
