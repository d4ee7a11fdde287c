//! WinSAT's system assessment events {ed54dff8-c409-4cf6-bf83-05e1e61a09c4}
//! (classic header; opcodes 33 WinSPR, 35 Metrics, 37 SystemConfig): an XML
//! document, UTF-16, LZNT1-compressed. Layout as PerfView's
//! SymbolTraceEventParser WinSatXmlTraceData reads it: u32 state, u32
//! uncompressed size (under 64 KiB), then the compressed bytes.

use super::lznt1;
use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// PerfView's bound: larger documents are not decoded.
const MAX_XML: usize = 0x10000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinSatXml {
    pub xml: String,
}

impl<'a> Decode<'a> for WinSatXml {
    const NAME: &'static str = "WinSatXml";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<WinSatXml> {
        let _state = r.u32()?;
        let size = r.u32()? as usize;
        if size >= MAX_XML || !size.is_multiple_of(2) {
            return Err(r.malformed("uncompressed size out of range"));
        }
        let bytes = match lznt1::decompress(r.rest(), size) {
            Some(b) if b.len() == size => b,
            _ => return Err(r.malformed("bad LZNT1 data")),
        };
        let units: Vec<u16> = bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        Ok(WinSatXml {
            xml: String::from_utf16_lossy(&units),
        })
    }
}
