//! Names managed (JIT-compiled or NGEN'd) frames from CLR method events, with
//! their module as WPA writes them: `module!Namespace.Class::Method`.
//!
//! The module is the image the method's code lies in when one is loaded there
//! (NGEN'd code: `mscorlib.ni.dll`); else the module the method's ModuleID
//! names in the CLR module events of its process, by its native image's file
//! name if it has one, else its IL file's (TraceEvent's TraceLog does the
//! same: `TraceManagedModule` with `NativePath` or `ILPath`).

use super::images::AddressMap;
use super::records::{ClrMethodRec, ClrModuleRec};
use crate::funcs::JitRanges;
use crate::images::{file_name, NONE};
use crate::Trace;
use rustc_hash::FxHashMap;

/// Name the frames that fall in a CLR method's code. `process_of(t, pid, ns)`
/// is the process row of an event's pid at its time.
pub fn name_managed_frames(
    t: &mut Trace,
    methods: &[ClrMethodRec],
    modules: &[ClrModuleRec],
    addresses: &AddressMap,
    process_of: impl Fn(&Trace, u32, i64) -> u32,
) {
    // (process row, ModuleID) -> the managed module's file name and path.
    let mut managed: FxHashMap<(u32, u64), (&str, &str)> = FxHashMap::default();
    for m in modules {
        let path = if m.native_path.is_empty() {
            &m.il_path
        } else {
            &m.native_path
        };
        let name = file_name(path);
        if !name.is_empty() {
            let p = process_of(t, m.pid, t.clock.to_ns(m.ts));
            managed.insert((p, m.module_id), (name, path));
        }
    }
    let mut rows = ModuleRows::new(t);
    // Raw-address code per process; code inside an image per module row (RVAs).
    let mut raw: FxHashMap<u32, JitRanges> = FxHashMap::default();
    let mut in_image: FxHashMap<u32, JitRanges> = FxHashMap::default();
    for m in methods {
        if m.size == 0 {
            continue;
        }
        let time = t.clock.to_ns(m.ts);
        let p = process_of(t, m.pid, time);
        let label = if m.namespace.is_empty() {
            m.name.clone()
        } else {
            format!("{}::{}", m.namespace, m.name)
        };
        let name = t.strings.intern(&label);
        let end = m.start.saturating_add(m.size as u64);
        if let Some(img) = addresses.lookup(&t.images, p, m.start, time) {
            let i = img as usize;
            let module = t.images.module[i];
            let base = t.images.base[i];
            let func = t.funcs.intern(module, name);
            in_image
                .entry(module)
                .or_default()
                .ranges
                .push((m.start - base, end - base, func));
            continue;
        }
        let module = match managed.get(&(p, m.module_id)) {
            Some(&(file, path)) => rows.of(t, p, file, path),
            None => NONE,
        };
        let func = t.funcs.intern(module, name);
        raw.entry(p).or_default().ranges.push((m.start, end, func));
    }
    for r in raw.values_mut().chain(in_image.values_mut()) {
        r.ranges.sort_unstable();
    }
    for f in 0..t.frames.len() {
        if t.frames.func[f] != NONE {
            continue;
        }
        let (m, a) = (t.frames.module[f], t.frames.address[f]);
        let found = if m == NONE {
            raw.get(&t.frames.process[f]).and_then(|r| r.lookup(a))
        } else {
            in_image.get(&m).and_then(|r| r.lookup(a))
        };
        if let Some(func) = found {
            t.frames.func[f] = func;
        }
    }
}

/// Module rows by file name: the process's own image of that name when it
/// mapped one (the IL image of `Test.x64.exe`), else one row per name added
/// for managed modules no image shows.
struct ModuleRows {
    /// (process row, lower-case file name) -> module row of its images.
    loaded: FxHashMap<(u32, String), u32>,
    added: FxHashMap<String, u32>,
}

impl ModuleRows {
    fn new(t: &Trace) -> ModuleRows {
        let mut loaded = FxHashMap::default();
        for i in 0..t.images.len() {
            let m = t.images.module[i];
            let Some(&name) = t.modules.name.get(m as usize) else {
                continue;
            };
            let key = (
                t.images.process[i],
                t.strings.get(name).to_ascii_lowercase(),
            );
            loaded.entry(key).or_insert(m);
        }
        ModuleRows {
            loaded,
            added: FxHashMap::default(),
        }
    }

    fn of(&mut self, t: &mut Trace, process: u32, file: &str, path: &str) -> u32 {
        let key = file.to_ascii_lowercase();
        if let Some(&m) = self.loaded.get(&(process, key.clone())) {
            return m;
        }
        *self.added.entry(key).or_insert_with(|| {
            let name = t.strings.intern(file);
            let path = t.strings.intern(path);
            t.modules.push(name, path, 0, 0, 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(module_id: u64, start: u64, size: u32, ns: &str, name: &str) -> ClrMethodRec {
        ClrMethodRec {
            ts: 0,
            pid: 7,
            module_id,
            start,
            size,
            namespace: ns.into(),
            name: name.into(),
            signature: String::new(),
        }
    }

    fn module(module_id: u64, il: &str, native: &str) -> ClrModuleRec {
        ClrModuleRec {
            ts: 0,
            pid: 7,
            module_id,
            il_path: il.into(),
            native_path: native.into(),
        }
    }

    /// One process with `mscorlib.ni.dll` at 0x1000_0000 and the IL image
    /// `App.exe` at 0x40_0000; frames in NGEN'd code, in JIT code of three
    /// modules, and in code no method covers.
    #[test]
    fn each_managed_frame_gets_the_module_wpa_shows() {
        let mut t = Trace::default();
        let p = {
            let n = t.strings.intern("App.exe");
            t.processes.push(7, n, crate::processes::OPEN)
        };
        let image = |t: &mut Trace, file: &str, base: u64| {
            let n = t.strings.intern(file);
            let m = t.modules.push(n, n, 0x10_0000, 1, 1);
            t.images
                .push(p, m, n, base, 0x10_0000, crate::processes::OPEN, false);
            m
        };
        let ni = image(&mut t, "mscorlib.ni.dll", 0x1000_0000);
        let app = image(&mut t, "App.exe", 0x40_0000);
        let addresses = AddressMap::new(&t.images);
        let ngen = t.frames.intern_module_frame(ni, 0x2010);
        let jit_app = t.frames.intern_raw_frame(p, 0x9000_0010);
        let jit_lib = t.frames.intern_raw_frame(p, 0x9000_1010);
        let jit_ni = t.frames.intern_raw_frame(p, 0x9000_2010);
        let unknown_module = t.frames.intern_raw_frame(p, 0x9000_3010);
        let no_method = t.frames.intern_raw_frame(p, 0x9000_4010);
        let modules = [
            module(1, r"C:\app\App.exe", ""),
            module(2, r"C:\app\Lib.dll", ""),
            module(3, r"C:\gac\mscorlib.dll", r"C:\ni\mscorlib.ni.dll"),
        ];
        let methods = [
            method(3, 0x1000_2000, 0x20, "System.DateTime", "GetDatePart"),
            method(1, 0x9000_0000, 0x20, "App.Program", "Main"),
            method(2, 0x9000_1000, 0x20, "Lib.Util", "Run"),
            method(
                3,
                0x9000_2000,
                0x20,
                "System.Collections.Generic.List`1[T]",
                "Add",
            ),
            method(99, 0x9000_3000, 0x20, "", "Orphan"),
        ];
        name_managed_frames(&mut t, &methods, &modules, &addresses, |_, _, _| p);
        let label = |f| t.frame_label(f);
        assert_eq!(label(ngen), "mscorlib.ni.dll!System.DateTime::GetDatePart");
        assert_eq!(label(jit_app), "App.exe!App.Program::Main");
        assert_eq!(label(jit_lib), "Lib.dll!Lib.Util::Run");
        assert_eq!(
            label(jit_ni),
            "mscorlib.ni.dll!System.Collections.Generic.List`1[T]::Add"
        );
        assert_eq!(label(unknown_module), "Orphan");
        assert_eq!(label(no_method), "0x90004010");
        // JIT code of the IL image's module is that module; a managed module
        // no image shows gets a row of its own, with the path the CLR gave.
        assert_eq!(
            t.funcs.module[t.frames.func[jit_app as usize] as usize],
            app
        );
        let lib = t.funcs.module[t.frames.func[jit_lib as usize] as usize];
        assert_eq!(
            t.strings.get(t.modules.path[lib as usize]),
            r"C:\app\Lib.dll"
        );
        assert_eq!(t.modules.len(), 3);
    }
}
