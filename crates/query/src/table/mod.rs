//! Tables with value columns: the column definitions every table shares
//! (`columns`), value specs and their aggregation, cell values, and the two
//! table engines that read them: CPU Usage (Sampled) as a tree of levels
//! (`sampled`) and any table grouped by whole key values (`flat`).

pub mod aggregate;
pub mod cell_value;
pub mod columns;
pub mod flat;
pub(crate) mod flat_classes;
pub mod plan;
pub(crate) mod row_range;
pub mod sampled;
pub(crate) mod sampled_values;
pub mod text_order;
pub mod value_spec;
