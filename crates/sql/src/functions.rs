//! SQL functions over stacks: `stack_contains(stack_id, 'pattern')` (some
//! frame's `module!function` contains the pattern, ASCII case ignored) and
//! `stack_text(stack_id)` (the frames root first, joined by `;`, as export
//! prints a Stack cell). `stack_contains` remembers, for the pattern of the
//! last call, which frames match and which stacks contain one: the stacks
//! are a prefix tree, so over a whole table each stack row and each frame
//! is tested once.

use model::{Trace, NONE};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use std::sync::{Arc, Mutex};

const UNKNOWN: u8 = 0;
const NO: u8 = 1;
const YES: u8 = 2;

/// What `stack_contains` knows for one pattern.
struct Matches {
    pattern: String,
    frames: Vec<u8>,
    stacks: Vec<u8>,
}

impl Matches {
    fn new(t: &Trace, pattern: &str) -> Matches {
        Matches {
            pattern: pattern.to_ascii_lowercase(),
            frames: vec![UNKNOWN; t.frames.len()],
            stacks: vec![UNKNOWN; t.stacks.len()],
        }
    }

    fn frame(&mut self, t: &Trace, f: u32) -> bool {
        let Some(known) = self.frames.get_mut(f as usize) else {
            return false;
        };
        if *known == UNKNOWN {
            let label = t.frame_label(f).to_ascii_lowercase();
            *known = if label.contains(&self.pattern) {
                YES
            } else {
                NO
            };
        }
        *known == YES
    }

    /// Whether stack row `st` or one of its parents has a matching frame.
    fn stack(&mut self, t: &Trace, st: u32) -> bool {
        let s = &t.stacks;
        let mut walked = Vec::new();
        let mut cur = st;
        let found = loop {
            let Some(&known) = self.stacks.get(cur as usize) else {
                break false; // past the root (NONE) or a row the table lacks
            };
            if known != UNKNOWN {
                break known == YES;
            }
            let frame = s.frame.get(cur as usize).copied().unwrap_or(NONE);
            if self.frame(t, frame) {
                break true;
            }
            walked.push(cur);
            // Parents precede children; anything else would loop.
            let parent = s.parent.get(cur as usize).copied().unwrap_or(NONE);
            if parent >= cur {
                break false;
            }
            cur = parent;
        };
        if found && cur != st {
            if let Some(k) = self.stacks.get_mut(cur as usize) {
                *k = YES;
            }
        }
        let mark = if found { YES } else { NO };
        for w in walked {
            if let Some(k) = self.stacks.get_mut(w as usize) {
                *k = mark;
            }
        }
        if let Some(k) = self.stacks.get_mut(st as usize) {
            if *k == UNKNOWN {
                *k = mark;
            }
        }
        found
    }
}

fn stack_arg(ctx: &Context<'_>) -> rusqlite::Result<Option<u32>> {
    Ok(match ctx.get_raw(0) {
        ValueRef::Integer(i) => u32::try_from(i).ok(),
        ValueRef::Null => None,
        _ => {
            return Err(rusqlite::Error::UserFunctionError(
                "the first argument is a stack id (an integer, e.g. a table's stack column)".into(),
            ))
        }
    })
}

/// The functions `install` adds, as a call reads (listed by `schema::json`
/// for the UI's completion).
pub const SIGNATURES: [(&str, &str); 2] = [
    ("stack_contains", "stack_contains(stack_id, 'text')"),
    ("stack_text", "stack_text(stack_id)"),
];

pub fn install(conn: &Connection, trace: &Arc<Trace>) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    let t = trace.clone();
    let memo: Mutex<Option<Matches>> = Mutex::new(None);
    conn.create_scalar_function(SIGNATURES[0].0, 2, flags, move |ctx| {
        let Some(st) = stack_arg(ctx)? else {
            return Ok(false);
        };
        let pattern = match ctx.get_raw(1) {
            ValueRef::Text(b) => String::from_utf8_lossy(b).into_owned(),
            _ => {
                return Err(rusqlite::Error::UserFunctionError(
                    "the second argument is the text to look for".into(),
                ))
            }
        };
        let mut memo = memo.lock().unwrap_or_else(|p| p.into_inner());
        let lower = pattern.to_ascii_lowercase();
        if memo.as_ref().is_none_or(|m| m.pattern != lower) {
            *memo = Some(Matches::new(&t, &pattern));
        }
        Ok(memo.as_mut().is_some_and(|m| m.stack(&t, st)))
    })?;
    let t = trace.clone();
    conn.create_scalar_function(SIGNATURES[1].0, 1, flags, move |ctx| {
        Ok(match stack_arg(ctx)? {
            Some(st) if (st as usize) < t.stacks.len() => {
                Some(query::table::columns::stack_text(&t, st))
            }
            _ => None,
        })
    })
}
