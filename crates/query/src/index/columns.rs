//! The key columns of CPU Usage (Sampled), named as WPA shows them, and
//! their keys: per-thread and per-call-node `u32` arrays computed once, so
//! a query never derives a key per sample.

use crate::index::call_tree::CallTree;
use crate::index::funcs::FuncKeys;
use crate::stack_tags::StackTags;
use model::strings::StrId;
use model::{Trace, NONE};

/// Key columns of CPU Usage (Sampled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// `name (pid)`, one key per process instance.
    Process,
    ProcessName,
    ThreadId,
    ThreadName,
    Cpu,
    /// Module of the leaf frame.
    Module,
    /// Function of the leaf frame.
    Function,
    /// Root to leaf, one call node per level.
    Stack,
    /// Leaf to root (callers first), one function per level.
    StackInverted,
    /// Image attributes of the leaf frame's module.
    ImagePath,
    FileVersion,
    CompanyName,
    /// The tag of the whole stack in the engine's stack tag set.
    StackTag,
    /// The region of the innermost instance of the regions file in use
    /// containing the sample's time (empty outside every instance).
    Region,
}

/// Where a column's key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    Thread(usize),
    Node(usize),
    Cpu,
    /// The sample's time, through the engine's region index.
    Region,
    Stack,
    StackInverted,
}

impl Column {
    pub const ALL: [Column; 14] = [
        Column::Process,
        Column::ProcessName,
        Column::ThreadId,
        Column::ThreadName,
        Column::Cpu,
        Column::Module,
        Column::Function,
        Column::Stack,
        Column::StackInverted,
        Column::ImagePath,
        Column::FileVersion,
        Column::CompanyName,
        Column::StackTag,
        Column::Region,
    ];

    /// The column header WPA uses.
    pub fn name(self) -> &'static str {
        match self {
            Column::Process => "Process",
            Column::ProcessName => "Process Name",
            Column::ThreadId => "Thread ID",
            Column::ThreadName => "Thread Name",
            Column::Cpu => "CPU",
            Column::Module => "Module",
            Column::Function => "Function",
            Column::Stack => "Stack",
            Column::StackInverted => "Stack (Inverted)",
            Column::ImagePath => "Image Path",
            Column::FileVersion => "File Version",
            Column::CompanyName => "Company Name",
            Column::StackTag => "Stack Tag",
            Column::Region => "Region",
        }
    }

    pub fn from_name(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    pub(crate) fn source(self) -> Source {
        match self {
            Column::Process => Source::Thread(0),
            Column::ProcessName => Source::Thread(1),
            Column::ThreadId => Source::Thread(2),
            Column::ThreadName => Source::Thread(3),
            Column::Cpu => Source::Cpu,
            Column::Module => Source::Node(0),
            Column::Function => Source::Node(1),
            Column::ImagePath => Source::Node(2),
            Column::FileVersion => Source::Node(3),
            Column::CompanyName => Source::Node(4),
            Column::StackTag => Source::Node(5),
            Column::Region => Source::Region,
            Column::Stack => Source::Stack,
            Column::StackInverted => Source::StackInverted,
        }
    }

    /// Whether the column spans several tree levels.
    pub fn is_stack(self) -> bool {
        matches!(self, Column::Stack | Column::StackInverted)
    }
}

/// Number of CPU keys; the model packs the CPU into 12 bits.
pub(crate) const CPUS: usize = 1 << 12;

/// Key arrays of the thread- and node-derived columns.
#[derive(Debug, Clone, Default)]
pub struct ColumnKeys {
    /// [Process, Process Name, Thread ID, Thread Name] per thread row.
    pub(crate) thread: [Vec<u32>; 4],
    /// [Module, Function, Image Path, File Version, Company Name, Stack
    /// Tag] per call node.
    pub(crate) node: [Vec<u32>; 6],
    /// Module key of leaf frames outside every module.
    pub unknown_module: u32,
    /// Module key (and Function key) of samples without a stack.
    pub no_stack_module: u32,
    pub no_stack_func: u32,
}

impl ColumnKeys {
    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        let keys = self.thread.iter().chain(&self.node);
        keys.map(Vec::capacity).sum::<usize>() * 4
    }

    pub fn build(trace: &Trace, funcs: &FuncKeys, tree: &CallTree, tags: &StackTags) -> ColumnKeys {
        let th = &trace.threads;
        let pr = &trace.processes;
        let proc_of = |t: usize| th.process.get(t).copied().unwrap_or(NONE);
        let thread = [
            (0..th.len()).map(proc_of).collect(),
            (0..th.len())
                .map(|t| pr.name.get(proc_of(t) as usize).map_or(0, |s| s.0))
                .collect(),
            th.tid.clone(),
            th.name.iter().map(|s| s.0).collect(),
        ];
        let modules = trace.modules.len() as u32;
        let unknown_module = modules;
        let no_stack_module = modules + 1;
        let no_stack_func = funcs.len() as u32;
        let module_of_node: Vec<u32> = (0..tree.len())
            .map(|n| {
                let f = tree.func[n];
                if f == NONE {
                    no_stack_module
                } else {
                    match funcs.module_of(f) {
                        NONE => unknown_module,
                        m => m,
                    }
                }
            })
            .collect();
        let attr = |col: &[StrId]| -> Vec<u32> {
            module_of_node
                .iter()
                .map(|&m| col.get(m as usize).map_or(0, |s| s.0))
                .collect()
        };
        let m = &trace.modules;
        let node = [
            module_of_node.clone(),
            tree.func
                .iter()
                .map(|&f| if f == NONE { no_stack_func } else { f })
                .collect(),
            attr(&m.path),
            attr(&m.file_version),
            attr(&m.company_name),
            tags.node_keys(trace, funcs, tree),
        ];
        ColumnKeys {
            thread,
            node,
            unknown_module,
            no_stack_module,
            no_stack_func,
        }
    }

    /// Replace the Stack Tag keys with those of `tags`.
    pub(crate) fn set_stack_tags(
        &mut self,
        trace: &Trace,
        funcs: &FuncKeys,
        tree: &CallTree,
        tags: &StackTags,
    ) {
        self.node[5] = tags.node_keys(trace, funcs, tree);
    }
}
