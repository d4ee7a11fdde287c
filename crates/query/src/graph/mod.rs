//! Series over equal time bins: the graph above a CPU Usage (Sampled)
//! table level (`table_graph`) and the per-process timeline (`timeline`);
//! row tables' graphs are `rows::graph`.

pub(crate) mod bins;
pub mod table_graph;
pub mod timeline;
