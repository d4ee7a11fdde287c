//! Images: one row per image lifetime (a module loaded into a process).

use super::{
    address, end_time, get, keyed, size, start_time, string, text, time_cell, version, Numbers,
    PercentOf, TableDef,
};
use model::images::ModuleTable;
use model::strings::StrId;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let im = &t.images;
    let m = &t.modules;
    // An attribute of the row's module.
    let attr = move |f: fn(&ModuleTable) -> &Vec<StrId>| {
        move |i: usize| {
            f(m).get(get(&im.module, i) as usize)
                .copied()
                .unwrap_or_default()
        }
    };
    let module = move |i: usize| get(&im.module, i) as usize;
    TableDef {
        name: "images",
        rows: im.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&im.process, i),
                move |k| t.process_text(k),
            ),
            string(t, "Image Name", attr(|m| &m.name)),
            // DOS form (C:\...), mapped with the trace's own volume and
            // system-path events; the form this load recorded is its own column.
            string(t, "Image Path", attr(|m| &m.path)),
            string(t, "Recorded Path", move |i| get(&im.path, i)),
            version(t, "File Version", attr(|m| &m.file_version)),
            string(t, "Product Name", attr(|m| &m.product_name)),
            string(t, "Company Name", attr(|m| &m.company_name)),
            string(t, "Description", attr(|m| &m.file_description)),
            address("Base Address", move |i| get(&im.base, i) as i64).alias(&["Base"]),
            size("Image Size", move |i| {
                get(&im.size, i).min(i64::MAX as u64) as i64
            })
            .alias(&["Size"]),
            start_time("Load Time", move |i| time_cell(get(&im.load, i))).alias(&["Load (s)"]),
            end_time("Unload Time", move |i| time_cell(get(&im.unload, i))).alias(&["Unload (s)"]),
            string(t, "PDB Name", attr(|m| &m.pdb_name)),
            text("PDB GUID", move |i| {
                m.pdb_guid
                    .get(module(i))
                    .copied()
                    .flatten()
                    .map(|g| g.to_string())
                    .unwrap_or_default()
            }),
            super::id("PDB Age", move |i| i64::from(get(&m.pdb_age, module(i)))),
            text("Has Version Info", move |i| {
                get(&m.has_version_info, module(i)).to_string()
            }),
        ],
        start: Numbers::I64(&im.load),
        end: Numbers::I64(&im.unload),
        timed: false,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Load Time", "Unload Time", "Image Size"],
        ui_weight: None,
        ui_sums: &[],
    }
}
