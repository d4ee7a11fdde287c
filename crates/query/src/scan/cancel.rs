//! A query nobody waits for any more stops early: the server sets the
//! flag of a request whose client went away (the page regrouped and
//! dropped the graph it had asked for), so its scans give the CPUs back to
//! the next request instead of finishing an answer no one reads. The flag
//! is the calling thread's; a query reads it once and hands it to its
//! parallel parts.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

thread_local! {
    static CURRENT: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `f` with `flag` as this thread's cancel flag: queries `f` makes
/// stop early (and fail) once it is set.
pub fn with_flag<R>(flag: Arc<AtomicBool>, f: impl FnOnce() -> R) -> R {
    let before = CURRENT.with(|c| c.replace(Some(flag)));
    let r = f();
    CURRENT.with(|c| *c.borrow_mut() = before);
    r
}

/// The cancel flag of the query being made (none outside `with_flag`).
#[derive(Clone, Default)]
pub(crate) struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    pub(crate) fn current() -> Cancel {
        Cancel(CURRENT.with(|c| c.borrow().clone()))
    }

    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// The error of a query cancelled while it ran.
    pub(crate) fn check(&self) -> Result<(), crate::QueryError> {
        if self.is_set() {
            return Err(crate::QueryError::BadRequest(
                "cancelled: the client went away".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_the_callers_while_it_runs() {
        assert!(!Cancel::current().is_set());
        let flag = Arc::new(AtomicBool::new(false));
        with_flag(Arc::clone(&flag), || {
            let c = Cancel::current();
            assert!(!c.is_set());
            flag.store(true, Ordering::Relaxed);
            assert!(c.is_set());
            assert!(c.check().is_err());
        });
        assert!(!Cancel::current().is_set());
    }
}
