//! Display text of event-table cells, shared by the UI's row tables
//! (crates/query) and `etlscope export`, so both show the same strings.

use crate::{Trace, NONE};

impl Trace {
    /// `name (pid)` of process row `p`, empty for `NONE`.
    pub fn process_text(&self, p: u32) -> String {
        if p == NONE {
            String::new()
        } else {
            self.process_label(p)
        }
    }

    /// Thread id of thread row `th`, empty when there is no such row.
    pub fn tid_text(&self, th: u32) -> String {
        self.threads
            .tid
            .get(th as usize)
            .map(|x| x.to_string())
            .unwrap_or_default()
    }

    /// Process row of thread row `th` (`NONE` when there is no such row).
    pub fn thread_process(&self, th: u32) -> u32 {
        self.threads
            .process
            .get(th as usize)
            .copied()
            .unwrap_or(NONE)
    }

    /// Provider name of generic event `row`.
    pub fn generic_provider_text(&self, row: usize) -> String {
        let g = &self.generic;
        g.provider
            .get(row)
            .and_then(|&p| g.providers.name.get(p as usize))
            .map_or_else(String::new, |&n| self.strings.get(n).to_string())
    }

    /// Event id of generic event `row`; kernel events show the hook id in
    /// hex, as the kernel documents them.
    pub fn generic_id_text(&self, row: usize) -> String {
        let g = &self.generic;
        let id = g.id.get(row).copied().unwrap_or_default();
        let kernel = g
            .provider
            .get(row)
            .and_then(|&p| g.providers.kernel_group.get(p as usize));
        match kernel {
            Some(Some(_)) => format!("{id:#06x}"),
            _ => id.to_string(),
        }
    }

    /// Process of generic event `row`; `Unknown (pid)` when the pid has no
    /// process row.
    pub fn generic_process_text(&self, row: usize) -> String {
        let g = &self.generic;
        let pid = g.pid.get(row).copied().unwrap_or(u32::MAX);
        match g.process.get(row).copied().unwrap_or(NONE) {
            NONE if pid != u32::MAX => format!("Unknown ({pid})"),
            p => self.process_text(p),
        }
    }

    /// The process the header of generic event `row` names: the Process
    /// column's, except where the payload names another (Kernel-Network).
    pub fn generic_header_process_text(&self, row: usize) -> String {
        match self.generic.header_process.get(&(row as u32)) {
            Some(&(_, p)) if p != NONE => self.process_text(p),
            Some(&(pid, _)) if pid != u32::MAX => format!("Unknown ({pid})"),
            Some(_) => String::new(),
            None => self.generic_process_text(row),
        }
    }

    /// Thread id of generic event `row`, recorded or resolved.
    pub fn generic_thread_text(&self, row: usize) -> String {
        let g = &self.generic;
        let tid = g.tid.get(row).copied().unwrap_or(u32::MAX);
        match g.thread.get(row).copied().unwrap_or(NONE) {
            NONE if tid != u32::MAX => tid.to_string(),
            th => self.tid_text(th),
        }
    }

    /// Decoded payload of generic event `row` as `name=value; ...`.
    pub fn generic_fields_text(&self, row: usize) -> String {
        self.generic_fields(row)
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// Task of generic event `row`: its manifest name when a schema names it.
    pub fn generic_task_text(&self, row: usize) -> String {
        let g = &self.generic;
        match g.event_schema(row).map(|s| s.task_name.as_str()) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => g.task.get(row).copied().unwrap_or_default().to_string(),
        }
    }

    /// Opcode of generic event `row`, by name when a schema names it.
    pub fn generic_opcode_text(&self, row: usize) -> String {
        let g = &self.generic;
        match g.event_schema(row).map(|s| s.opcode_name.as_str()) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => g.opcode.get(row).copied().unwrap_or_default().to_string(),
        }
    }

    /// Level of generic event `row`: the schema's name, else the standard
    /// level names (winmeta.xml) for 1..5, else the number.
    pub fn generic_level_text(&self, row: usize) -> String {
        let g = &self.generic;
        if let Some(n) = g.event_schema(row).map(|s| s.level_name.as_str()) {
            if !n.is_empty() {
                return n.to_string();
            }
        }
        let level = g.level.get(row).copied().unwrap_or_default();
        match level {
            1 => "win:Critical".into(),
            2 => "win:Error".into(),
            3 => "win:Warning".into(),
            4 => "win:Informational".into(),
            5 => "win:Verbose".into(),
            n => n.to_string(),
        }
    }

    /// Keyword mask of generic event `row` in hex, with the schema's keyword
    /// names when it has them.
    pub fn generic_keyword_text(&self, row: usize) -> String {
        let g = &self.generic;
        let mask = format!("{:#x}", g.keyword.get(row).copied().unwrap_or_default());
        match g.event_schema(row).map(|s| s.keywords_name.as_str()) {
            Some(n) if !n.is_empty() => format!("{mask} ({n})"),
            _ => mask,
        }
    }

    /// The `k`-th decoded field value of generic event `row` (WPA's
    /// Field k+1), empty past the last field.
    pub fn generic_field_value(&self, row: usize, k: usize) -> String {
        self.generic_fields(row)
            .into_iter()
            .nth(k)
            .map(|(_, v)| v)
            .unwrap_or_default()
    }
}
