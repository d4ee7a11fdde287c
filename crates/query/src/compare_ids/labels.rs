//! Frame labels (`Trace::frame_label`) of both traces as shared ids,
//! without making the text of every frame: a frame without a function
//! name reads `module!0xADDRESS` (or `0xADDRESS`), so it is labelled by
//! its module's text id and its address, and its text is made only when
//! asked for. A named frame's text is read, and one that has that same
//! form is labelled the same way, so equal ids are equal texts and equal
//! texts equal ids (the hex part holds no `!`: the last `!` splits it).

use super::texts::Texts;
use model::{Trace, NONE};
use rustc_hash::FxHashMap;
use std::borrow::Cow;

/// No module: the label is the bare address.
const NO_MODULE: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Label {
    /// `module!0x…` (module's text id, or `NO_MODULE`) and the address.
    Address(u32, u64),
    /// Any other text, by its text id.
    Text(u32),
}

#[derive(Default)]
pub(super) struct Labels {
    index: FxHashMap<Label, u32>,
    labels: Vec<Label>,
    texts: Texts,
}

/// The address `s` is the `{:#x}` text of, if it is one.
fn hex(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x")?;
    let canonical = !digits.is_empty()
        && digits
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && (digits == "0" || !digits.starts_with('0'));
    canonical.then(|| u64::from_str_radix(digits, 16).ok())?
}

impl Labels {
    fn id(&mut self, l: Label) -> u32 {
        let next = self.labels.len() as u32;
        let id = *self.index.entry(l).or_insert(next);
        if id == next {
            self.labels.push(l);
        }
        id
    }

    /// The id of the label `text`.
    pub(super) fn of_text(&mut self, text: String) -> u32 {
        let label = match text.rsplit_once('!') {
            Some((module, addr)) => hex(addr).map(|a| (module, a)),
            None => hex(&text).map(|a| ("", a)),
        };
        let label = match label {
            Some(("", a)) if !text.contains('!') => Label::Address(NO_MODULE, a),
            Some((module, a)) => Label::Address(self.texts.id(module.to_string()), a),
            None => Label::Text(self.texts.id(text)),
        };
        self.id(label)
    }

    /// The label of frame `f` of `t`; `module_text` caches each module
    /// row's text id (`u32::MAX`: not read yet). `None` for a label that
    /// is empty or holds `;` (a path would not be its Stack text).
    pub(super) fn of_frame(&mut self, t: &Trace, f: u32, module_text: &mut [u32]) -> Option<u32> {
        let i = f as usize;
        let func = t.frames.func.get(i).copied().unwrap_or(NONE);
        let named = t.funcs.name.get(func as usize).is_some();
        let (Some(&m), Some(&a), false) = (t.frames.module.get(i), t.frames.address.get(i), named)
        else {
            // Named, or a row the tables lack: by its text.
            let text = t.frame_label(f);
            if text.is_empty() || text.contains(';') {
                return None;
            }
            return Some(self.of_text(text));
        };
        let module = match t.modules.name.get(m as usize) {
            None => NO_MODULE,
            Some(&name) => match module_text.get(m as usize) {
                Some(&id) if id != u32::MAX => id,
                _ => {
                    let text = t.strings.get(name);
                    if text.contains(';') {
                        return None;
                    }
                    let id = self.texts.id(text.to_string());
                    if let Some(slot) = module_text.get_mut(m as usize) {
                        *slot = id;
                    }
                    id
                }
            },
        };
        Some(self.id(Label::Address(module, a)))
    }

    /// The text of label `l`.
    pub(super) fn get(&self, l: u32) -> Cow<'_, str> {
        match self.labels.get(l as usize) {
            Some(&Label::Text(s)) => Cow::Borrowed(self.texts.get(s)),
            Some(&Label::Address(NO_MODULE, a)) => Cow::Owned(format!("{a:#x}")),
            Some(&Label::Address(m, a)) => Cow::Owned(format!("{}!{a:#x}", self.texts.get(m))),
            None => Cow::Borrowed(""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_are_equal_ids_whichever_way_they_came() {
        let mut l = Labels::default();
        let words = [
            "a!0x10", "a!0x010", "a!0x1A", "0x10", "0x0", "0x", "a!b!0x10", "a!b", "a", "!0x10",
        ];
        let ids: Vec<u32> = words.iter().map(|w| l.of_text(w.to_string())).collect();
        for (w, &id) in words.iter().zip(&ids) {
            assert_eq!(l.get(id), *w);
        }
        let m = l.texts.id("a".to_string());
        let by_address = l.id(Label::Address(m, 0x10));
        assert_eq!(by_address, ids[0]);
        assert_eq!(l.id(Label::Address(NO_MODULE, 0x10)), ids[3]);
        let distinct: std::collections::HashSet<u32> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), words.len());
    }
}
