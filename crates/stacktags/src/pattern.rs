//! Wildcard patterns of `.stacktags` entry points: `*` matches any run of
//! characters, `?` exactly one; everything else literally, ASCII
//! case-insensitive (Windows module names compare so, and WPA's catalog
//! mixes `NTDLL.DLL` and `ntdll.dll`).

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Lower-cased pattern characters.
    chars: Vec<char>,
    /// `*` alone: matches everything without scanning.
    any: bool,
}

impl Pattern {
    pub fn new(text: &str) -> Pattern {
        let chars: Vec<char> = text.chars().map(|c| c.to_ascii_lowercase()).collect();
        let any = !chars.is_empty() && chars.iter().all(|&c| c == '*');
        Pattern { chars, any }
    }

    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// Greedy matching with one backtrack point (the last `*`): linear in
    /// practice, O(pattern x text) at worst, never exponential.
    pub fn matches(&self, text: &str) -> bool {
        if self.any {
            return true;
        }
        let t: Vec<char> = text.chars().map(|c| c.to_ascii_lowercase()).collect();
        let p = &self.chars;
        let (mut pi, mut ti) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while ti < t.len() {
            match p.get(pi) {
                Some('*') => {
                    star = Some((pi, ti));
                    pi += 1;
                }
                Some(&c) if c == '?' || Some(&c) == t.get(ti) => {
                    pi += 1;
                    ti += 1;
                }
                _ => match star {
                    Some((sp, st)) => {
                        pi = sp + 1;
                        ti = st + 1;
                        star = Some((sp, st + 1));
                    }
                    None => return false,
                },
            }
        }
        p.get(pi..)
            .is_some_and(|rest| rest.iter().all(|&c| c == '*'))
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    fn m(p: &str, t: &str) -> bool {
        Pattern::new(p).matches(t)
    }

    #[test]
    fn wildcards() {
        assert!(m("*", ""));
        assert!(m("*", "anything"));
        assert!(m("ntdll.dll", "NTDLL.DLL"));
        assert!(!m("ntdll.dll", "ntdll.dl"));
        assert!(m("nt*.exe", "ntoskrnl.exe"));
        assert!(m("nt*.exe", "nt.exe"));
        assert!(!m("nt*.exe", "ntoskrnl.dll"));
        assert!(m("clr?.dll", "clrx.dll"));
        assert!(!m("clr?.dll", "clr.dll"));
        assert!(m("*GC*", "WKS::gc_heap::garbage_collect"));
        assert!(m("a*b*c", "aXbYbZc"));
        assert!(!m("a*b*c", "aXbYbZ"));
        assert!(m(
            "Ki*Interrupt",
            "KiInterruptDispatchNoLockNoEtw_Interrupt"
        ));
        assert!(!m("", "x"));
        assert!(m("", ""));
    }
}
