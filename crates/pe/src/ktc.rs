//! The KernelTraceControl events xperf's merge writes for one loaded image,
//! built with the demo trace's encoders (`synth::events`).

use crate::identity::Identity;
use etl::writer::{ClassicHeader, Record};
use synth::events::{self, ktc_opcodes, VersionInfo, KERNEL_TRACE_CONTROL};

/// The image event the identity events describe.
#[derive(Debug, Clone, Copy)]
pub struct LoadedImage<'a> {
    pub timestamp: i64,
    pub base: u64,
    pub size: u64,
    pub pid: u32,
    /// Of the image event; the identity events use the same.
    pub pointer_size: u8,
    /// As the image event recorded it (an NT path).
    pub path: &'a str,
}

/// One event to write: its opcode and payload.
pub struct KtcEvent {
    pub opcode: u8,
    pub payload: Vec<u8>,
}

impl KtcEvent {
    pub fn record<'a>(&'a self, image: &LoadedImage<'_>) -> Record<'a> {
        let h = ClassicHeader {
            guid: KERNEL_TRACE_CONTROL,
            opcode: self.opcode,
            level: 0,
            // The versions xperf writes (seen in perfview-net452-x64.etl).
            version: if self.opcode == ktc_opcodes::FILE_VERSION {
                0
            } else {
                2
            },
            pid: image.pid,
            tid: 0,
        };
        Record::full(image.timestamp, h, &self.payload).with_pointer_size(image.pointer_size)
    }
}

/// ImageID, then DbgID_RSDS when the file has a PDB record, then FileVersion
/// when it has a version resource: the order xperf writes them in.
pub fn events_for(image: &LoadedImage<'_>, id: &Identity) -> Vec<KtcEvent> {
    let p = image.pointer_size;
    let file_name = image.path.rsplit(['\\', '/']).next().unwrap_or(image.path);
    let mut out = vec![KtcEvent {
        opcode: ktc_opcodes::IMAGE_ID,
        payload: events::image_id(
            p,
            image.base,
            image.size,
            image.pid,
            id.time_date_stamp,
            file_name,
        ),
    }];
    if let Some(pdb) = &id.pdb {
        out.push(KtcEvent {
            opcode: ktc_opcodes::DBG_ID_RSDS,
            payload: events::dbg_id_rsds(p, image.base, image.pid, pdb.guid, pdb.age, &pdb.path),
        });
    }
    if let Some(v) = &id.version {
        let info = VersionInfo {
            original_file_name: &v.original_file_name,
            file_description: &v.file_description,
            file_version: &v.file_version,
            product_name: &v.product_name,
            company_name: &v.company_name,
            product_version: &v.product_version,
        };
        // ImageSize as the image event has it: the model matches on it.
        let size = u32::try_from(image.size).unwrap_or(id.size_of_image);
        out.push(KtcEvent {
            opcode: ktc_opcodes::FILE_VERSION,
            payload: events::file_version_with(
                size,
                id.time_date_stamp,
                &info,
                &v.bin_file_version,
                &v.language,
            ),
        });
    }
    out
}
