//! .NET runtime method and module events, enough to name JIT-compiled frames
//! without PDBs. Providers: Microsoft-Windows-DotNETRuntime
//! {e13c0d23-ccbc-4e12-931b-d9cc2eee27e4} and DotNETRuntimeRundown
//! {a669021c-c450-4609-a035-5af59af4df18}. Source: TE-CLR
//! (`MethodLoadUnloadVerboseTraceData`, `ModuleLoadUnloadTraceData`),
//! etl-format F.3. All integer fields are fixed-size, whatever the bitness.

use super::reader::{Reader, Result};
use super::{Decode, CLR_RUNDOWN, CLR_RUNTIME};
use crate::{Event, Guid};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodEventKind {
    /// Runtime 141 / 143.
    Load,
    /// Runtime 142 / 144.
    Unload,
    /// Rundown 141 / 143: methods present when the rundown started.
    DcStart,
    /// Rundown 142 / 144: methods present when the trace ended.
    DcEnd,
}

/// The method event a (provider, event id) pair is, and whether it is verbose.
pub fn method_event(provider: Guid, event_id: u16) -> Option<(MethodEventKind, bool)> {
    let verbose = matches!(event_id, 143 | 144);
    let load = matches!(event_id, 141 | 143);
    if !matches!(event_id, 141..=144) {
        return None;
    }
    let kind = match (provider == CLR_RUNDOWN, load) {
        (false, true) => MethodEventKind::Load,
        (false, false) => MethodEventKind::Unload,
        (true, true) => MethodEventKind::DcStart,
        (true, false) => MethodEventKind::DcEnd,
    };
    (provider == CLR_RUNTIME || provider == CLR_RUNDOWN).then_some((kind, verbose))
}

/// MethodLoad / Unload / DCStart / DCEnd, verbose or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClrMethod {
    pub kind: MethodEventKind,
    pub method_id: u64,
    pub module_id: u64,
    pub start_address: u64,
    pub size: u32,
    pub token: u32,
    /// 1 dynamic, 2 generic, 4 has shared generic code, 8 jitted.
    pub flags: u32,
    /// Verbose events only (else empty).
    pub namespace: String,
    pub name: String,
    pub signature: String,
    /// v1+.
    pub clr_instance_id: Option<u16>,
    /// v2+.
    pub rejit_id: Option<u64>,
}

impl<'a> Decode<'a> for ClrMethod {
    const NAME: &'static str = "ClrMethod";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ClrMethod> {
        let (kind, verbose) = ev
            .provider
            .and_then(|p| method_event(p, ev.event_id))
            .ok_or_else(|| r.malformed("not a CLR method event"))?;
        let mut m = ClrMethod {
            kind,
            method_id: r.u64()?,
            module_id: r.u64()?,
            start_address: r.u64()?,
            size: r.u32()?,
            token: r.u32()?,
            flags: r.u32()?,
            namespace: String::new(),
            name: String::new(),
            signature: String::new(),
            clr_instance_id: None,
            rejit_id: None,
        };
        if verbose {
            m.namespace = r.utf16z()?;
            m.name = r.utf16z()?;
            m.signature = r.utf16z()?;
        }
        if ev.version >= 1 {
            m.clr_instance_id = Some(r.u16()?);
        }
        if ev.version >= 2 {
            m.rejit_id = Some(r.u64()?);
        }
        Ok(m)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleEventKind {
    /// Runtime 152.
    Load,
    /// Runtime 153.
    Unload,
    /// Rundown 153.
    DcStart,
    /// Rundown 154.
    DcEnd,
}

pub fn module_event(provider: Guid, event_id: u16) -> Option<ModuleEventKind> {
    match (provider, event_id) {
        (p, 152) if p == CLR_RUNTIME => Some(ModuleEventKind::Load),
        (p, 153) if p == CLR_RUNTIME => Some(ModuleEventKind::Unload),
        (p, 153) if p == CLR_RUNDOWN => Some(ModuleEventKind::DcStart),
        (p, 154) if p == CLR_RUNDOWN => Some(ModuleEventKind::DcEnd),
        _ => None,
    }
}

/// A PDB reference of a managed module (v2+).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClrPdb {
    pub guid: Guid,
    pub age: u32,
    pub build_path: String,
}

/// ModuleLoad / Unload / DCStart / DCEnd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClrModule {
    pub kind: ModuleEventKind,
    pub module_id: u64,
    pub assembly_id: u64,
    pub flags: u32,
    pub il_path: String,
    pub native_path: String,
    pub clr_instance_id: Option<u16>,
    pub managed_pdb: Option<ClrPdb>,
    pub native_pdb: Option<ClrPdb>,
}

fn pdb(r: &mut Reader<'_>) -> Result<ClrPdb> {
    Ok(ClrPdb {
        guid: r.guid()?,
        age: r.u32()?,
        build_path: r.utf16z()?,
    })
}

impl<'a> Decode<'a> for ClrModule {
    const NAME: &'static str = "ClrModule";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ClrModule> {
        let kind = ev
            .provider
            .and_then(|p| module_event(p, ev.event_id))
            .ok_or_else(|| r.malformed("not a CLR module event"))?;
        let mut m = ClrModule {
            kind,
            module_id: r.u64()?,
            assembly_id: r.u64()?,
            flags: r.u32()?,
            il_path: {
                r.skip(4)?; // Reserved1
                r.utf16z()?
            },
            native_path: r.utf16z()?,
            clr_instance_id: None,
            managed_pdb: None,
            native_pdb: None,
        };
        if ev.version >= 1 {
            m.clr_instance_id = Some(r.u16()?);
        }
        if ev.version >= 2 {
            m.managed_pdb = Some(pdb(r)?);
            m.native_pdb = Some(pdb(r)?);
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{event_header_event, utf16z};

    #[test]
    fn method_load_verbose_v2() {
        let mut b = Vec::new();
        b.extend(1u64.to_le_bytes());
        b.extend(2u64.to_le_bytes());
        b.extend(0x7FF0_1234_0000u64.to_le_bytes());
        b.extend(0x80u32.to_le_bytes());
        b.extend(0x0600_0001u32.to_le_bytes());
        b.extend(8u32.to_le_bytes());
        b.extend(utf16z("NS.Type"));
        b.extend(utf16z("Run"));
        b.extend(utf16z("void ()"));
        b.extend(5u16.to_le_bytes());
        b.extend(9u64.to_le_bytes());
        // A 32-bit process's event: fields stay 8 bytes wide.
        let ev = event_header_event(CLR_RUNTIME, 143, 2, 4, &[], &b);
        let m = ClrMethod::decode(&ev).unwrap();
        assert_eq!(m.kind, MethodEventKind::Load);
        assert_eq!(
            (m.method_id, m.module_id, m.start_address),
            (1, 2, 0x7FF0_1234_0000)
        );
        assert_eq!((m.size, m.token, m.flags), (0x80, 0x0600_0001, 8));
        assert_eq!((m.namespace.as_str(), m.name.as_str()), ("NS.Type", "Run"));
        assert_eq!((m.clr_instance_id, m.rejit_id), (Some(5), Some(9)));
        let ev = event_header_event(CLR_RUNDOWN, 142, 0, 8, &[], &b[..36]);
        let m = ClrMethod::decode(&ev).unwrap();
        assert_eq!(
            (m.kind, m.name.as_str(), m.clr_instance_id),
            (MethodEventKind::DcEnd, "", None)
        );
    }
}
