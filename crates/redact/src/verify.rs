//! The last pass: the whole written file searched for every original, in
//! 8-bit and UTF-16LE text, headers and gaps included. One left means the
//! rewrite missed a place (an event it could not walk, bytes between
//! buffers): the copy is refused with where that place was in the input.

use crate::matcher::Matcher;
use crate::rewrite::Failure;

/// `Ok` when no original is left in `bytes`; else the input offset of the
/// part that holds one. `origins` maps output parts to input offsets.
pub fn clean(bytes: &[u8], origins: &[(u64, u64)], matcher: &Matcher) -> Result<(), Failure> {
    let Some(hit) = matcher.hits(bytes).into_iter().next() else {
        return Ok(());
    };
    let at = hit.start as u64;
    let (out_start, in_start) = origins
        .iter()
        .rev()
        .find(|(o, _)| *o <= at)
        .copied()
        .unwrap_or((0, 0));
    let category = matcher
        .needles()
        .get(hit.needle)
        .map_or("?", |n| n.category.name());
    Err((
        in_start,
        format!(
            "a {category} original is left at offset {at:#x} of the copy (in the part of the \
             input from offset {in_start:#x}, {} bytes in): the event there could not be \
             rewritten, so nothing is written",
            at - out_start
        ),
    ))
}
