//! The model's funcs table in plain data: one row per distinct function
//! (module, start RVA), and the func row of each named frame. What the model
//! needs to fill `FrameTable::func` without knowing about PDBs.

use crate::symbolizer::Symbolization;
use model::frames::FrameTable;
use std::collections::HashMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuncRows {
    pub module: Vec<u32>,
    pub start_rva: Vec<u32>,
    pub name: Vec<String>,
    /// (frame row, func row), ascending by frame row.
    pub frame_func: Vec<(u32, u32)>,
}

impl FuncRows {
    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

impl Symbolization {
    /// Group the named frames into functions.
    pub fn func_rows(&self, frames: &FrameTable) -> FuncRows {
        let mut out = FuncRows::default();
        let mut index: HashMap<(u32, u32), u32> = HashMap::new();
        for (row, info) in &self.frames {
            let Some(&module) = frames.module.get(*row as usize) else {
                continue;
            };
            let next = out.name.len() as u32;
            let f = *index.entry((module, info.start_rva)).or_insert(next);
            if f == next {
                out.module.push(module);
                out.start_rva.push(info.start_rva);
                out.name.push(info.name.clone());
            }
            out.frame_func.push((*row, f));
        }
        out
    }
}
