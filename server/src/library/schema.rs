//! The library's tables: one declaration per table and column (type, unit,
//! meaning) that the writers, the doc (docs/guide/sql.md, "Library") and
//! the tests read. The tables themselves are made by the catalogs'
//! numbered migrations; a test checks that both agree with this list.

/// A column's SQL type, the same meaning in SQLite and PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// TEXT in both.
    Text,
    /// INTEGER in SQLite, BIGINT in PostgreSQL.
    Integer,
    /// REAL in SQLite, DOUBLE PRECISION in PostgreSQL.
    Real,
}

impl Type {
    #[cfg(test)]
    pub fn sqlite(self) -> &'static str {
        match self {
            Type::Text => "TEXT",
            Type::Integer => "INTEGER",
            Type::Real => "REAL",
        }
    }

    #[cfg(test)]
    pub fn postgres(self) -> &'static str {
        match self {
            Type::Text => "text",
            Type::Integer => "bigint",
            Type::Real => "double precision",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Col {
    #[cfg_attr(not(test), allow(dead_code))]
    pub name: &'static str,
    // Read by the PostgreSQL catalog (the `team` feature) and the tests.
    #[cfg_attr(not(any(test, feature = "team")), allow(dead_code))]
    pub ty: Type,
    /// Empty when the value has none. (Unit and meaning are the doc's.)
    #[cfg_attr(not(test), allow(dead_code))]
    pub unit: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub meaning: &'static str,
}

#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    pub meaning: &'static str,
    pub columns: &'static [Col],
}

const fn col(name: &'static str, ty: Type, unit: &'static str, meaning: &'static str) -> Col {
    Col {
        name,
        ty,
        unit,
        meaning,
    }
}

use Type::{Integer as I, Real as R, Text as T};

/// The summary's format; a summary of an older one is made again at start.
pub const SUMMARY_VERSION: i64 = 1;
/// Processes whose modules and functions are summarized: the busiest by samples.
pub const TOP_PROCESSES: usize = 20;
/// Rows of `library_cpu_functions` per trace: the largest by inclusive weight.
pub const MAX_FUNCTION_ROWS: usize = 2_000;
/// Rows of `library_images` and of `library_processes` per trace.
pub const MAX_LIST_ROWS: usize = 5_000;

const TRACE: Col = col(
    "trace",
    T,
    "",
    "the trace's id (`/api/traces/{id}`, `library_traces.trace`)",
);
const PROCESS: Col = col("process", T, "", "`name (pid)`, as the Process column");
const PROCESS_NAME: Col = col("process_name", T, "", "the image name, e.g. `explorer.exe`");

const CPU_COLUMNS: [Col; 4] = [
    col(
        "exclusive_samples",
        I,
        "samples",
        "samples whose leaf frame is in it",
    ),
    col(
        "exclusive_weight_ns",
        I,
        "ns",
        "their weight (sampled CPU time)",
    ),
    col(
        "inclusive_samples",
        I,
        "samples",
        "samples with a frame of it anywhere on the stack (each once)",
    ),
    col("inclusive_weight_ns", I, "ns", "their weight"),
];

pub static TABLES: &[Table] = &[
    Table {
        name: "library_traces",
        meaning: "one row per summarized trace",
        columns: &[
            TRACE,
            col("name", T, "", "the trace's name in the library"),
            col("computer", T, "", "the recording computer's name (empty when the trace does not say)"),
            col("os_build", T, "", "Windows' version as recorded, e.g. `10.0.19045`"),
            col("cpus", I, "", "logical processors"),
            col("start_time", T, "ISO 8601 UTC", "the trace's time zero"),
            col("duration_ns", I, "ns", "the trace's length"),
            col("samples", I, "samples", "CPU samples in the trace"),
            col("labels", T, "", "the notes given with the upload (`POST /api/traces?notes=...`), e.g. `build=22621.1`"),
            col("uploader", T, "", "who uploaded it"),
            col("uploaded_at", T, "RFC 3339", "when it was added to the library"),
            col("summary_version", I, "", "the summary's format (now 1)"),
        ],
    },
    Table {
        name: "library_cpu_processes",
        meaning: "CPU Usage (Sampled) by process: every process with a sample",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("pid", I, "", "process id"),
            col("samples", I, "samples", "its samples"),
            col("weight_ns", I, "ns", "their weight (sampled CPU time)"),
        ],
    },
    Table {
        name: "library_cpu_modules",
        meaning: "CPU by module in each of the 20 busiest processes",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("module", T, "", "the image name, e.g. `tishell64.dll` (`?` outside every image)"),
            CPU_COLUMNS[0],
            CPU_COLUMNS[1],
            CPU_COLUMNS[2],
            CPU_COLUMNS[3],
        ],
    },
    Table {
        name: "library_cpu_functions",
        meaning: "CPU by function in each of the 20 busiest processes: the 2,000 rows of largest inclusive weight per trace",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("module", T, "", "the function's image name"),
            col("function", T, "", "`module!function` as the Function column (`module!0xRVA` without symbols)"),
            CPU_COLUMNS[0],
            CPU_COLUMNS[1],
            CPU_COLUMNS[2],
            CPU_COLUMNS[3],
        ],
    },
    Table {
        name: "library_images",
        meaning: "images loaded, one row per path and File Version (at most 5,000 per trace)",
        columns: &[
            TRACE,
            col("image_name", T, "", "file name"),
            col("image_path", T, "", "full path"),
            col("file_version", T, "", "File Version from its version resource (empty without one)"),
            col("company_name", T, "", "Company Name from its version resource"),
            col("processes", I, "", "processes that loaded it"),
            col("process_names", T, "", "their names, sorted, distinct, joined by `, `"),
        ],
    },
    Table {
        name: "library_file_io",
        meaning: "File I/O by process and path: the 2,000 rows of longest total duration per trace",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("file_path", T, "", "the file"),
            col("count", I, "", "I/O operations (creates, reads, writes, ...)"),
            col("size", I, "bytes", "bytes read and written"),
            col("duration_ns", I, "ns", "the operations' total duration"),
        ],
    },
    Table {
        name: "library_disk_io",
        meaning: "Disk I/O by process and path: the 2,000 rows of longest total service time per trace",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("path_name", T, "", "the file"),
            col("count", I, "", "disk I/O operations"),
            col("size", I, "bytes", "bytes transferred"),
            col("disk_service_time_ns", I, "ns", "total disk service time"),
        ],
    },
    Table {
        name: "library_processes",
        meaning: "processes with their lifetimes (at most 5,000 per trace)",
        columns: &[
            TRACE,
            PROCESS,
            PROCESS_NAME,
            col("pid", I, "", "process id"),
            col("parent_pid", I, "", "its parent's id"),
            col("command_line", T, "", "the command line"),
            col("start_time_ns", I, "ns since trace start", "its start (NULL: before the trace)"),
            col("end_time_ns", I, "ns since trace start", "its end (NULL: still running at the end)"),
            col("duration_ns", I, "ns", "its lifetime inside the trace"),
            col("exit_code", I, "", "exit code (NULL: still running)"),
        ],
    },
    Table {
        name: "library_findings",
        meaning: "what `etlscope findings` lists",
        columns: &[
            TRACE,
            col("rule", T, "", "the rule, e.g. `third-party-module`"),
            col("category", T, "", "CPU, I/O, memory or health"),
            col("title", T, "", "one sentence with the figures"),
            col("figure", R, "", "the number the view shows, in `unit`"),
            col("unit", T, "", "the figure's unit"),
            col("link", T, "", "the view in the UI: the query string of the trace's page (empty when it has none)"),
        ],
    },
];

/// Whether `name` is a library table (what a library query may read).
pub fn is_table(name: &str) -> bool {
    TABLES.iter().any(|t| t.name.eq_ignore_ascii_case(name))
}

pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

/// The tables as Markdown: what docs/guide/sql.md's "Library" section
/// holds (a test compares them).
#[cfg(test)]
pub fn markdown() -> String {
    let mut out = String::new();
    for t in TABLES {
        out.push_str(&format!("#### `{}`: {}\n\n", t.name, t.meaning));
        out.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
        for c in t.columns {
            out.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                c.name,
                c.ty.sqlite(),
                c.unit,
                c.meaning
            ));
        }
        out.push('\n');
    }
    out
}
