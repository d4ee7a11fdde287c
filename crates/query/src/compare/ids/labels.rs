//! Frame labels (`Trace::frame_label`) of both traces as shared ids,
//! without making the text of every frame: a frame without a function
//! name reads `module!0xADDRESS` (or `0xADDRESS`), so it is labelled by
//! its module's text id and its address, and its text is made only when
//! asked for. A named frame's text is read, and one that has that same
//! form is labelled the same way, so equal ids are equal texts and equal
//! texts equal ids (the hex part holds no `!`: the last `!` splits it).

use super::hash_keys::Keys;
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

/// A label's parts, borrowed: what its fingerprint hashes.
enum Parts<'a> {
    Text(&'a str),
    /// `module!0x…` (no module: the bare address).
    Address(Option<&'a str>, u64),
}

/// `text` in the one form of its label (an address form is an address).
fn parts_of_text(text: &str) -> Parts<'_> {
    let label = match text.rsplit_once('!') {
        Some((module, addr)) => hex(addr).map(|a| (module, a)),
        None => hex(text).map(|a| ("", a)),
    };
    match label {
        Some(("", a)) if !text.contains('!') => Parts::Address(None, a),
        Some((module, a)) => Parts::Address(Some(module), a),
        None => Parts::Text(text),
    }
}

/// The fingerprint of a label's parts (`None`: no label).
fn hash_parts(parts: Option<Parts<'_>>, keys: &Keys) -> u128 {
    keys.hash(|h| match parts {
        Some(Parts::Text(s)) => {
            h.write_u8(0);
            h.write(s.as_bytes());
        }
        Some(Parts::Address(None, a)) => {
            h.write_u8(1);
            h.write_u64(a);
        }
        Some(Parts::Address(Some(m), a)) => {
            h.write_u8(2);
            h.write(m.as_bytes());
            h.write_u8(0xff); // not in UTF-8: ends the module text
            h.write_u64(a);
        }
        None => h.write_u8(3),
    })
}

/// What frame `f`'s label is made of, before anything is interned: the
/// text of a named frame (or of a row the tables lack), else its module row
/// and text (`None`: outside every module) and its address. `None` for a
/// label that is empty or holds `;` (a path would not be its Stack text).
enum FrameParts<'t> {
    Text(String),
    Address(Option<(u32, &'t str)>, u64),
}

fn frame_parts(t: &Trace, f: u32) -> Option<FrameParts<'_>> {
    let i = f as usize;
    let func = t.frames.func.get(i).copied().unwrap_or(NONE);
    let named = t.funcs.name.get(func as usize).is_some();
    let (Some(&m), Some(&a), false) = (t.frames.module.get(i), t.frames.address.get(i), named)
    else {
        let text = t.frame_label(f);
        if text.is_empty() || text.contains(';') {
            return None;
        }
        return Some(FrameParts::Text(text));
    };
    let module = match t.modules.name.get(m as usize) {
        None => None,
        Some(&name) => {
            let text = t.strings.get(name);
            if text.contains(';') {
                return None;
            }
            Some((m, text))
        }
    };
    Some(FrameParts::Address(module, a))
}

/// `Labels::fingerprint` of the label `Labels::of_frame` gives frame `f`,
/// without interning it: the paths' fingerprints need no label ids, and
/// their table was the largest thing made after a trace is ready.
pub(super) fn frame_fingerprint(t: &Trace, f: u32, keys: &Keys) -> Option<u128> {
    let parts = match frame_parts(t, f)? {
        FrameParts::Text(text) => return Some(hash_parts(Some(parts_of_text(&text)), keys)),
        FrameParts::Address(module, a) => Parts::Address(module.map(|(_, text)| text), a),
    };
    Some(hash_parts(Some(parts), keys))
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
        let label = match parts_of_text(&text) {
            Parts::Address(None, a) => Label::Address(NO_MODULE, a),
            Parts::Address(Some(module), a) => Label::Address(self.texts.id(module.to_string()), a),
            Parts::Text(_) => Label::Text(self.texts.id(text)),
        };
        self.id(label)
    }

    /// The label of frame `f` of `t`; `module_text` caches each module
    /// row's text id (`u32::MAX`: not read yet). `None` for a label that
    /// is empty or holds `;` (a path would not be its Stack text).
    pub(super) fn of_frame(&mut self, t: &Trace, f: u32, module_text: &mut [u32]) -> Option<u32> {
        let (module, a) = match frame_parts(t, f)? {
            FrameParts::Text(text) => return Some(self.of_text(text)),
            FrameParts::Address(module, a) => (module, a),
        };
        let module = match module {
            None => NO_MODULE,
            Some((m, text)) => match module_text.get(m as usize) {
                Some(&id) if id != u32::MAX => id,
                _ => {
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

    /// The Function text of frame `f` (`NONE`: empty) as a label, any text
    /// accepted (a Function cell is not part of a path).
    pub(super) fn of_function(&mut self, t: &Trace, f: u32, module_text: &mut [u32]) -> u32 {
        if f == NONE {
            return self.of_text(String::new());
        }
        match self.of_frame(t, f, module_text) {
            Some(l) => l,
            None => self.of_text(t.frame_label(f)),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.labels.len()
    }

    /// Drops what only making new labels needs (`get` still answers).
    pub(super) fn freeze(&mut self) {
        self.index = FxHashMap::default();
        self.labels.shrink_to_fit();
    }

    /// Bytes held, about (the texts counted twice: listed and indexed).
    pub(super) fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<(Label, u32)>() + 1;
        self.index.capacity() * entry
            + self.labels.capacity() * std::mem::size_of::<Label>()
            + self.texts.bytes()
    }

    /// A 128-bit hash of label `l`'s text, the same for equal texts in any
    /// trace (labels are in one form per text, so their parts are hashed).
    pub(super) fn fingerprint(&self, l: u32, keys: &Keys) -> u128 {
        let parts = self.labels.get(l as usize).map(|&l| match l {
            Label::Text(s) => Parts::Text(self.texts.get(s)),
            Label::Address(NO_MODULE, a) => Parts::Address(None, a),
            Label::Address(m, a) => Parts::Address(Some(self.texts.get(m)), a),
        });
        hash_parts(parts, keys)
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
