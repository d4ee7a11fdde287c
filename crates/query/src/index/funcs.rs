//! Function identity for grouping ("func keys"): a dense `u32` space with
//! the symbolized functions first, then one "module!?" key per module for
//! frames not symbolized yet, then one "?!?" key for raw addresses.
//!
//! Keys follow the labels, as WPA groups its Module and Stack columns by the
//! text they show: modules of one name (a 32-bit and a 64-bit `clr.dll` in
//! one trace) are one Module key, and functions of one module name and one
//! function name are one func key. Each module row maps to the first row of
//! its name (`canonical_modules`).

use model::{Trace, NONE};
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Default)]
pub struct FuncKeys {
    /// Func key of each frame row.
    pub of_frame: Vec<u32>,
    /// Module row of each func key (`NONE` for "?!?").
    pub module: Vec<u32>,
    /// The model's function row behind a symbolized key, `NONE` otherwise.
    pub model_func: Vec<u32>,
    /// Number of symbolized keys; module keys follow them.
    pub symbolized: u32,
    /// One frame row of each key (the first), `NONE` when no frame has it:
    /// with its module, the frame's RVA names the key in links.
    pub first_frame: Vec<u32>,
    /// Each module row's first row of the same name: its Module key.
    pub canonical: Vec<u32>,
}

impl FuncKeys {
    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        (self.of_frame.capacity()
            + self.module.capacity()
            + self.model_func.capacity()
            + self.first_frame.capacity()
            + self.canonical.capacity())
            * 4
    }

    /// O(#frames); rebuild when symbolization fills `frames.func`.
    pub fn build(trace: &Trace) -> FuncKeys {
        let frames = &trace.frames;
        let canon = canonical_modules(trace);
        let canon_of = |m: u32| canon.get(m as usize).copied().unwrap_or(NONE);
        // Key of a symbolized function: its module's name and its own name
        // (a function row without a name keeps its row as its identity).
        // Managed code outside every image takes its function's module.
        let func_label = |i: usize, f: u32| {
            let name = trace.funcs.name.get(f as usize).map_or(NONE, |&s| s.0);
            let by_row = if name == NONE { f } else { NONE };
            let m = match frames.module.get(i).copied().unwrap_or(NONE) {
                NONE => trace.funcs.module.get(f as usize).copied().unwrap_or(NONE),
                m => m,
            };
            (canon_of(m), name, by_row)
        };
        let mut dense: FxHashMap<(u32, u32, u32), u32> = FxHashMap::default();
        let mut module = Vec::new();
        let mut model_func = Vec::new();
        // Symbolized functions first, numbered by first appearance.
        for (i, &f) in frames.func.iter().enumerate() {
            if f == NONE {
                continue;
            }
            let label = func_label(i, f);
            if let std::collections::hash_map::Entry::Vacant(v) = dense.entry(label) {
                v.insert(module.len() as u32);
                module.push(label.0);
                model_func.push(f);
            }
        }
        let symbolized = module.len() as u32;
        let modules = trace.modules.len() as u32;
        module.extend(0..modules);
        model_func.extend((0..modules).map(|_| NONE));
        let unknown = symbolized + modules;
        module.push(NONE);
        model_func.push(NONE);
        let of_frame: Vec<u32> = (0..frames.len())
            .map(|i| {
                let f = frames.func.get(i).copied().unwrap_or(NONE);
                let m = canon_of(frames.module.get(i).copied().unwrap_or(NONE));
                match (f != NONE).then(|| dense.get(&func_label(i, f))).flatten() {
                    Some(&k) => k,
                    None if m != NONE && m < modules => symbolized + m,
                    None => unknown,
                }
            })
            .collect();
        let mut first_frame = vec![NONE; module.len()];
        for (i, &k) in of_frame.iter().enumerate() {
            if let Some(slot) = first_frame.get_mut(k as usize) {
                if *slot == NONE {
                    *slot = i as u32;
                }
            }
        }
        FuncKeys {
            of_frame,
            module,
            model_func,
            symbolized,
            first_frame,
            canonical: canon,
        }
    }

    /// The Module key of module row `m` (the first row of its name).
    pub fn canonical_module(&self, m: u32) -> u32 {
        self.canonical.get(m as usize).copied().unwrap_or(m)
    }

    /// Number of keys (the key space is `0..len()`).
    pub fn len(&self) -> usize {
        self.module.len()
    }

    pub fn is_empty(&self) -> bool {
        self.module.is_empty()
    }

    /// The "?!?" key of frames outside every module.
    pub fn unknown(&self) -> u32 {
        self.module.len().saturating_sub(1) as u32
    }

    /// The "module!?" key of module row `m`.
    pub fn of_module(&self, m: u32) -> u32 {
        self.symbolized.saturating_add(m)
    }

    /// Func key of a frame row (`unknown()` for an invalid row).
    #[inline]
    pub fn of_frame(&self, frame: u32) -> u32 {
        self.of_frame
            .get(frame as usize)
            .copied()
            .unwrap_or_else(|| self.unknown())
    }

    /// Module row of a key, `NONE` for "?!?" or an invalid key.
    #[inline]
    pub fn module_of(&self, key: u32) -> u32 {
        self.module.get(key as usize).copied().unwrap_or(NONE)
    }

    /// `module!function` as WPA shows it; `module!?` before symbolization.
    pub fn label(&self, trace: &Trace, key: u32) -> String {
        let m = self.module_of(key);
        let module = if m == NONE {
            "?"
        } else {
            trace
                .modules
                .name
                .get(m as usize)
                .map_or("?", |&s| trace.strings.get(s))
        };
        match self.model_func.get(key as usize) {
            Some(&f) if f != NONE => {
                // A row the function table lacks keeps a stable placeholder.
                let name = trace.funcs.name.get(f as usize).map_or_else(
                    || format!("func#{f}"),
                    |&s| trace.strings.get(s).to_string(),
                );
                // JIT-compiled code whose module the trace does not name:
                // the method alone.
                if m == NONE {
                    name.to_string()
                } else {
                    format!("{module}!{name}")
                }
            }
            _ => format!("{module}!?"),
        }
    }
}

/// Each module row's first row of the same name (ASCII case-insensitive, as
/// Windows compares file names); `NONE` stays `NONE`.
pub fn canonical_modules(trace: &Trace) -> Vec<u32> {
    let mut first: FxHashMap<String, u32> = FxHashMap::default();
    (0..trace.modules.len() as u32)
        .map(|m| {
            let name = trace
                .modules
                .name
                .get(m as usize)
                .map_or("", |&s| trace.strings.get(s))
                .to_ascii_lowercase();
            *first.entry(name).or_insert(m)
        })
        .collect()
}
