//! CPU Usage (Sampled): one row per sample. The query engine groups the
//! samples by its own per-thread and per-call-node keys (`columns`); these
//! definitions name and type the same columns for export and the API.

use super::{
    duration, id, keyed, stack, start_time, string, version, Numbers, PercentOf, TableDef,
};
use model::strings::StrId;
use model::{Trace, NONE};

pub(super) fn table<'a>(t: &'a Trace, regions: &'a model::regions::RegionTable) -> TableDef<'a> {
    let s = &t.samples;
    let thread = move |i: usize| s.thread(i) as usize;
    let process = move |i: usize| t.threads.process.get(thread(i)).copied().unwrap_or(NONE);
    let leaf_frame = move |i: usize| match s.stack.get(i).copied().unwrap_or(NONE) {
        NONE => NONE,
        st => t.stacks.frame.get(st as usize).copied().unwrap_or(NONE),
    };
    // Managed code outside every image: the module its function names (as
    // the frame's label and the engine's Module column have it).
    let leaf_module = move |i: usize| match leaf_frame(i) {
        NONE => NONE,
        f => match t.frames.module.get(f as usize).copied().unwrap_or(NONE) {
            NONE => {
                let func = t.frames.func.get(f as usize).copied().unwrap_or(NONE);
                t.funcs.module.get(func as usize).copied().unwrap_or(NONE)
            }
            m => m,
        },
    };
    // An attribute of the leaf frame's module (empty outside every module).
    let module_attr = move |f: fn(&model::images::ModuleTable) -> &Vec<StrId>| {
        move |i: usize| {
            f(&t.modules)
                .get(leaf_module(i) as usize)
                .copied()
                .unwrap_or_default()
        }
    };
    let region =
        super::regions::region_column(regions, move |i| s.time.get(i).copied().unwrap_or(0));
    TableDef {
        name: "cpu-sampled",
        rows: s.len(),
        columns: region
            .into_iter()
            .chain(vec![
                keyed("Process", process, move |k| t.process_text(k)),
                string(t, "Process Name", move |i| {
                    t.processes
                        .name
                        .get(process(i) as usize)
                        .copied()
                        .unwrap_or_default()
                }),
                id("PID", move |i| {
                    t.processes
                        .pid
                        .get(process(i) as usize)
                        .map_or(super::MISSING, |&p| i64::from(p))
                }),
                id("Thread ID", move |i| {
                    t.threads
                        .tid
                        .get(thread(i))
                        .map_or(super::MISSING, |&x| i64::from(x))
                }),
                string(t, "Thread Name", move |i| {
                    t.threads.name.get(thread(i)).copied().unwrap_or_default()
                }),
                id("CPU", move |i| i64::from(s.cpu(i))),
                string(t, "Module", module_attr(|m| &m.name)),
                keyed("Function", leaf_frame, move |f| match f {
                    NONE => String::new(),
                    f => t.frame_label(f),
                }),
                stack("Stack", move |i| s.stack.get(i).copied().unwrap_or(NONE)),
                string(t, "Image Path", module_attr(|m| &m.path)),
                version(t, "File Version", module_attr(|m| &m.file_version)),
                string(t, "Company Name", module_attr(|m| &m.company_name)),
                // The stored column itself: sorted, so SQL's time ranges
                // (crates/sql) find their rows by binary search.
                start_time("Time", Numbers::I64(&s.time)),
                // The sampling interval in force at the sample.
                duration("Weight", move |i| s.weight_ns(i)).alias(&["Weight (ms)"]),
            ])
            .collect(),
        start: Numbers::I64(&s.time),
        end: Numbers::I64(&s.time),
        timed: true,
        weight: Some("Weight"),
        percent_of: PercentOf::CpuCapacity,
        default_keys: &[],
        default_values: &["Count", "Weight", "% Weight"],
        ui_weight: Some("Weight (ms)"),
        ui_sums: &[],
    }
}

#[cfg(test)]
mod tests {
    use crate::Column;

    /// The engine groups samples by `Column`s; export and the API name
    /// them by these definitions: the two lists must not drift apart.
    #[test]
    fn every_engine_column_is_defined_here() {
        let t = model::Trace::default();
        // Stack Tag needs a tag set: `of_tagged` adds it.
        let tags = crate::stack_tags::StackTagKeys::empty();
        let Some(def) = crate::TableDef::of_tagged(&t, "cpu-sampled", &tags) else {
            panic!("no cpu-sampled table");
        };
        for c in Column::ALL {
            if c == Column::StackInverted || c == Column::Region {
                // A way to drill Stack, not a column of the rows; Region
                // only with a regions file (`regions::region_column`).
                continue;
            }
            assert!(def.column(c.name()).is_some(), "{} missing", c.name());
        }
    }
}
