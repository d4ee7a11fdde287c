//! The connection a query runs on, and what keeps it harmless: an
//! in-memory database opened read-only with `query_only`, an authorizer
//! that allows reading and calling functions and refuses the rest (writes,
//! ATTACH, PRAGMAs other than the schema's, `load_extension`), SQLite's
//! size limits lowered, and a progress handler that stops a statement at
//! its time limit, its memory limit or when the caller cancels.

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// PRAGMAs that only read the schema (`PRAGMA table_info(cpu_sampled)`).
const READ_PRAGMAS: [&str; 5] = [
    "table_info",
    "table_xinfo",
    "table_list",
    "function_list",
    "module_list",
];

/// Functions no query may call.
const REFUSED_FUNCTIONS: [&str; 2] = ["load_extension", "fts3_tokenizer"];

/// Why the progress handler stopped a statement.
pub const RUNNING: u8 = 0;
pub const TIMED_OUT: u8 = 1;
pub const CANCELLED: u8 = 2;
pub const OUT_OF_MEMORY: u8 = 3;

/// Longest SQL text accepted, in bytes.
pub const MAX_SQL_BYTES: i32 = 100_000;
/// Longest string or blob a query can make, in bytes.
pub const MAX_VALUE_BYTES: i32 = 16 << 20;

/// What the authorizer refused last (said in the error).
pub type Refusals = Arc<Mutex<Option<String>>>;

/// Which tables a statement may read: every one (a trace's virtual
/// tables), or those a test names (a database file's, e.g. the library's).
pub type Readable = Option<fn(&str) -> bool>;

/// The read-only connection with its guards, before any table is added.
pub fn open() -> rusqlite::Result<(Connection, Refusals)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    guarded(Connection::open_in_memory_with_flags(flags)?, None)
}

/// A read-only connection to the database file `path` with the same
/// guards, reading only the tables `readable` allows.
pub fn open_file(
    path: &Path,
    readable: fn(&str) -> bool,
) -> rusqlite::Result<(Connection, Refusals)> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    // A writer's checkpoint may hold the file for a moment.
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    guarded(conn, Some(readable))
}

fn guarded(mut conn: Connection, readable: Readable) -> rusqlite::Result<(Connection, Refusals)> {
    // Sorts and GROUP BY's temporary b-trees stay in memory, where the
    // progress handler counts them, rather than in files.
    conn.execute_batch("PRAGMA temp_store = MEMORY; PRAGMA query_only = 1;")?;
    use rusqlite::config::DbConfig;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    for (limit, value) in [
        (Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES),
        (Limit::SQLITE_LIMIT_COLUMN, 500),
        (Limit::SQLITE_LIMIT_EXPR_DEPTH, 200),
        (Limit::SQLITE_LIMIT_COMPOUND_SELECT, 50),
        (Limit::SQLITE_LIMIT_VDBE_OP, 250_000),
        (Limit::SQLITE_LIMIT_FUNCTION_ARG, 32),
        (Limit::SQLITE_LIMIT_ATTACHED, 0),
        (Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 10_000),
        (Limit::SQLITE_LIMIT_VARIABLE_NUMBER, 100),
        (Limit::SQLITE_LIMIT_TRIGGER_DEPTH, 1),
        (Limit::SQLITE_LIMIT_WORKER_THREADS, 0),
    ] {
        conn.set_limit(limit, value)?;
    }
    let refusals: Refusals = Arc::default();
    let said = refusals.clone();
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        let refused = refusal(&ctx.action, ctx.database_name, readable);
        if let Some(why) = &refused {
            if let Ok(mut s) = said.lock() {
                *s = Some(why.clone());
            }
        }
        if refused.is_some() {
            Authorization::Deny
        } else {
            Authorization::Allow
        }
    }))?;
    Ok((conn, refusals))
}

/// Why `action` (on a table of `database`) is refused, or None when it
/// only reads.
fn refusal(action: &AuthAction<'_>, database: Option<&str>, readable: Readable) -> Option<String> {
    match action {
        // A CTE's or subquery's rows are in no database: always readable.
        AuthAction::Read { table_name, .. } => match readable {
            Some(may) if database.is_some() && !may(table_name) => Some(format!(
                "the table {table_name} is not one a query here may read"
            )),
            _ => None,
        },
        AuthAction::Select | AuthAction::Recursive => None,
        AuthAction::Function { function_name } => {
            let f = function_name.to_ascii_lowercase();
            REFUSED_FUNCTIONS
                .contains(&f.as_str())
                .then(|| format!("the function {function_name}() is not allowed"))
        }
        AuthAction::Pragma { pragma_name, .. } => {
            let p = pragma_name.to_ascii_lowercase();
            (!READ_PRAGMAS.contains(&p.as_str())).then(|| {
                format!(
                    "PRAGMA {pragma_name} is not allowed (only {})",
                    READ_PRAGMAS.join(", ")
                )
            })
        }
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => {
            Some("ATTACH and DETACH are not allowed: a query reads its own tables only".into())
        }
        other => Some(format!(
            "{} is not allowed: queries are read-only (SELECT and WITH)",
            action_name(other)
        )),
    }
}

fn action_name(action: &AuthAction<'_>) -> String {
    let dbg = format!("{action:?}");
    dbg.split([' ', '{', '('])
        .next()
        .unwrap_or("this")
        .to_string()
}

/// The stop conditions of one statement, checked every few thousand
/// SQLite instructions.
pub struct Watch {
    pub deadline: Instant,
    pub cancel: Arc<AtomicBool>,
    /// Bytes SQLite may hold beyond what it held when the statement started.
    pub memory_bytes: u64,
    pub reason: Arc<AtomicU8>,
}

/// Instructions between two checks: about a millisecond of work.
const CHECK_EVERY: i32 = 10_000;

pub fn watch(conn: &mut Connection, w: Watch) -> rusqlite::Result<()> {
    let base = memory_used();
    conn.progress_handler(
        CHECK_EVERY,
        Some(move || {
            let why = if w.cancel.load(Ordering::Relaxed) {
                CANCELLED
            } else if Instant::now() >= w.deadline {
                TIMED_OUT
            } else if memory_used().saturating_sub(base) > w.memory_bytes {
                OUT_OF_MEMORY
            } else {
                return false;
            };
            w.reason.store(why, Ordering::Relaxed);
            true
        }),
    )
}

/// Bytes SQLite holds now, in every connection of the process (SQLite
/// counts only globally: concurrent queries count against each other,
/// which errs on the safe side).
pub fn memory_used() -> u64 {
    // SAFETY: sqlite3_memory_used only reads SQLite's global counter.
    let used = unsafe { rusqlite::ffi::sqlite3_memory_used() };
    u64::try_from(used).unwrap_or(0)
}
