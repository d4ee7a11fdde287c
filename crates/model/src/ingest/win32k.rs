//! Window in Focus and UI Delays from the Win32k rows of Generic Events
//! (see `crate::win32k` for the layouts).

use super::joiner::Joiner;
use crate::generic::GenericEventTable;
use crate::processes::OPEN;
use crate::win32k::{FocusTable, UiDelayTable, FOCUS_CHANGE, MESSAGE_CHECK_DELAY, WIN32K};

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

const MS: i64 = 1_000_000;

/// `g`'s thread and process rows already joined; a payload too short for
/// its fields stays in Generic Events only.
pub(super) fn build_win32k(g: &GenericEventTable, j: &mut Joiner) -> (FocusTable, UiDelayTable) {
    let ours: Vec<bool> = (g.providers.guid.iter())
        .map(|p| p.is_some_and(|p| WIN32K.contains(&p)))
        .collect();
    let (mut focus, mut delays) = (FocusTable::default(), UiDelayTable::default());
    for i in 0..g.len() {
        if g.provider.get(i).and_then(|&p| ours.get(p as usize)) != Some(&true) {
            continue;
        }
        let b = g.payload(i);
        let time = g.time.get(i).copied().unwrap_or(0);
        match g.id.get(i).copied() {
            Some(FOCUS_CHANGE) => {
                let Some(new) = u32_at(b, 4) else { continue };
                if let Some(last) = focus.end.last_mut() {
                    if *last == OPEN {
                        *last = time;
                    }
                }
                // Focus to no thread ends the last row only.
                if new == 0 {
                    continue;
                }
                let (thread, process) = j.thread_at(new, time);
                focus.start.push(time);
                focus.end.push(OPEN);
                focus.tid.push(new);
                focus.thread.push(thread);
                focus.process.push(process);
            }
            Some(MESSAGE_CHECK_DELAY) => {
                let (Some(delay), Some(oldest)) = (u32_at(b, 4), u32_at(b, 12)) else {
                    continue;
                };
                delays.time.push(time);
                // A wait that began before the trace starts with it.
                let start = time.saturating_sub(i64::from(delay) * MS).max(0);
                delays.start.push(start);
                delays.delay_ns.push(i64::from(delay) * MS);
                delays.oldest_input_ns.push(i64::from(oldest) * MS);
                delays.tid.push(g.tid.get(i).copied().unwrap_or(u32::MAX));
                delays
                    .thread
                    .push(g.thread.get(i).copied().unwrap_or(crate::NONE));
                delays
                    .process
                    .push(g.process.get(i).copied().unwrap_or(crate::NONE));
            }
            _ => {}
        }
    }
    (focus, delays)
}
