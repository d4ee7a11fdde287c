//! Stable identities for links. Keys are dense indices of one ingest and
//! labels change when symbols load (`module!?` becomes `module!Function`),
//! so a link names things by what the trace itself recorded:
//!
//! - a process by pid and start: `pid:6148@0` (start in ns from trace start,
//!   `-` for a process already running when the trace began);
//! - a module by name, PE timestamp and image size (hex): `mod:ntdll.dll@5f3a1b2c:1f0000`;
//! - a function by one of its frames, module and RVA (hex): `fn:ntdll.dll@5f3a1b2c:1f0000+1a2b0`.
//!   Whichever function contains that RVA once symbols load is the one meant,
//!   so a link made before or after symbolization resolves either way.

use crate::{Column, Engine, ROOT, STACK_SELF};
use model::processes::OPEN;
use model::NONE;
use std::fmt::Write;

/// A parsed stable identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StableId {
    Process { pid: u32, start: i64 },
    Module(ModuleId),
    Frame { module: ModuleId, rva: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleId {
    pub name: String,
    pub timestamp: u32,
    pub size: u64,
}

impl StableId {
    /// `None` when `s` is not in one of the three forms (then it is a label).
    pub fn parse(s: &str) -> Option<StableId> {
        if let Some(rest) = s.strip_prefix("pid:") {
            let (pid, start) = rest.split_once('@')?;
            let start = if start == "-" {
                OPEN
            } else {
                start.parse().ok()?
            };
            return Some(StableId::Process {
                pid: pid.parse().ok()?,
                start,
            });
        }
        if let Some(rest) = s.strip_prefix("mod:") {
            return ModuleId::parse(rest).map(StableId::Module);
        }
        if let Some(rest) = s.strip_prefix("fn:") {
            let (module, rva) = rest.rsplit_once('+')?;
            return Some(StableId::Frame {
                module: ModuleId::parse(module)?,
                rva: u64::from_str_radix(rva, 16).ok()?,
            });
        }
        None
    }
}

impl ModuleId {
    fn parse(s: &str) -> Option<ModuleId> {
        let (name, rest) = s.rsplit_once('@')?;
        let (ts, size) = rest.split_once(':')?;
        Some(ModuleId {
            name: name.to_string(),
            timestamp: u32::from_str_radix(ts, 16).ok()?,
            size: u64::from_str_radix(size, 16).ok()?,
        })
    }
}

/// What an identity names in this trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    Process(u32),
    /// Module rows (a module may be listed once per distinct path).
    Modules(Vec<u32>),
    /// The func key of the frame.
    Func(u32),
}

impl Engine {
    /// The stable identity of `key` in `column`, when the column names
    /// processes, modules or functions (others are stable as labels).
    pub fn stable_id(&self, column: Column, key: u32) -> Option<String> {
        match column {
            Column::Process => {
                let p = &self.trace().processes;
                let pid = *p.pid.get(key as usize)?;
                let start = *p.start.get(key as usize)?;
                Some(if start == OPEN {
                    format!("pid:{pid}@-")
                } else {
                    format!("pid:{pid}@{start}")
                })
            }
            Column::Module => self.module_id(key).map(|m| format!("mod:{m}")),
            Column::Function | Column::StackInverted => self.func_id(key),
            // The node's own frame: once symbols load it is named by the
            // function on this very path, not by another of `module!?`'s.
            Column::Stack => match key {
                STACK_SELF | ROOT => None,
                n => self.frame_id(*self.call_tree().frame.get(n as usize)?),
            },
            _ => None,
        }
    }

    /// `name@timestamp:size` of module row `m` (a `mod:` identity without
    /// its prefix; `fn:` identities are this, `+`, and an RVA in hex).
    pub fn module_id(&self, m: u32) -> Option<String> {
        let t = self.trace();
        let i = m as usize;
        let name = t.strings.get(*t.modules.name.get(i)?);
        let mut s = String::with_capacity(name.len() + 20);
        let _ = write!(
            s,
            "{name}@{:x}:{:x}",
            t.modules.timestamp.get(i)?,
            t.modules.size.get(i)?
        );
        Some(s)
    }

    /// `fn:MODULE+RVA` of a func key, from its first frame.
    fn func_id(&self, func: u32) -> Option<String> {
        self.frame_id(*self.funcs().first_frame.get(func as usize)?)
    }

    /// `fn:MODULE+RVA` of a frame row.
    fn frame_id(&self, f: u32) -> Option<String> {
        if f == NONE {
            return None;
        }
        let frames = &self.trace().frames;
        let m = *frames.module.get(f as usize)?;
        if m == NONE {
            return None; // a raw address: no module to anchor it
        }
        let rva = *frames.address.get(f as usize)?;
        Some(format!("fn:{}+{rva:x}", self.module_id(m)?))
    }

    /// Module row and RVA of the frame that names call node `node` (`None`
    /// for the root, `[self]`, or a frame outside every module).
    pub fn node_frame(&self, node: u32) -> Option<(u32, u64)> {
        let f = *self.call_tree().frame.get(node as usize)?;
        let frames = &self.trace().frames;
        let m = *frames.module.get(f as usize)?;
        (m != NONE).then_some((m, *frames.address.get(f as usize)?))
    }

    /// What `s` names, if it is a stable identity found in this trace.
    /// `Some(Err(()))`: an identity, but nothing in this trace has it.
    pub fn resolve_stable_id(&self, s: &str) -> Option<Result<Resolved, ()>> {
        let id = StableId::parse(s)?;
        let t = self.trace();
        Some(match id {
            StableId::Process { pid, start } => (0..t.processes.len())
                .find(|&i| t.processes.pid[i] == pid && t.processes.start[i] == start)
                .map(|i| Resolved::Process(i as u32))
                .ok_or(()),
            StableId::Module(m) => {
                // Modules of one name are one Module key (funcs.rs).
                let ms: Vec<u32> = self
                    .modules_with(&m)
                    .into_iter()
                    .map(|i| self.funcs().canonical_module(i))
                    .collect();
                if ms.is_empty() {
                    Err(())
                } else {
                    Ok(Resolved::Modules(ms))
                }
            }
            StableId::Frame { module, rva } => {
                let ms = self.modules_with(&module);
                let frames = &t.frames;
                (0..frames.len())
                    .find(|&i| frames.address[i] == rva && ms.contains(&frames.module[i]))
                    .map(|i| Resolved::Func(self.funcs().of_frame(i as u32)))
                    .ok_or(())
            }
        })
    }

    fn modules_with(&self, m: &ModuleId) -> Vec<u32> {
        let t = self.trace();
        let mods = &t.modules;
        (0..mods.len())
            .filter(|&i| {
                mods.timestamp[i] == m.timestamp
                    && mods.size[i] == m.size
                    && t.strings.get(mods.name[i]).eq_ignore_ascii_case(&m.name)
            })
            .map(|i| i as u32)
            .collect()
    }

    /// Whether `key` of `column` is what `r` names.
    pub fn key_is(&self, column: Column, key: u32, r: &Resolved) -> bool {
        match (column, r) {
            (Column::Process, Resolved::Process(p)) => key == *p,
            (Column::Module, Resolved::Modules(ms)) => ms.contains(&key),
            (Column::Function | Column::StackInverted, Resolved::Func(f)) => key == *f,
            (Column::Stack, Resolved::Func(f)) => {
                key != STACK_SELF
                    && key != ROOT
                    && self.call_tree().func.get(key as usize) == Some(f)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_forms_and_nothing_else() {
        assert_eq!(
            StableId::parse("pid:6148@0"),
            Some(StableId::Process {
                pid: 6148,
                start: 0
            })
        );
        assert_eq!(
            StableId::parse("pid:4@-"),
            Some(StableId::Process {
                pid: 4,
                start: OPEN
            })
        );
        let m = ModuleId {
            name: "a@b.dll".into(),
            timestamp: 0x5f3a1b2c,
            size: 0x1f0000,
        };
        assert_eq!(
            StableId::parse("mod:a@b.dll@5f3a1b2c:1f0000"),
            Some(StableId::Module(m.clone()))
        );
        assert_eq!(
            StableId::parse("fn:a@b.dll@5f3a1b2c:1f0000+1a2b0"),
            Some(StableId::Frame {
                module: m,
                rva: 0x1a2b0
            })
        );
        for label in [
            "explorer.exe (6148)",
            "ntdll.dll!RtlUserThreadStart",
            "pid:x@0",
            "mod:ntdll.dll",
            "fn:ntdll.dll@zz:1+2",
            "",
        ] {
            assert_eq!(StableId::parse(label), None, "{label}");
        }
    }
}
