//! The first pass: every event of the trace read for originals to replace.
//! Three sources, so that neither an unknown event nor an odd string hides
//! one: the text runs of every payload (profile paths, command lines,
//! `NAME=VALUE`, IP addresses, the paths asked for), the typed decoders
//! (Process command lines, SysConfig's computer and domain) and the fields
//! of the trace's own schemas and TraceLogging events by name.

use crate::mask::{mask, Keep, Salt};
use crate::matcher::{Matcher, Needle};
use crate::text::runs;
use crate::{Category, Options};
use etl::decode::schema::coverage::trace_registry;
use etl::decode::schema::registry::SchemaRegistry;
use etl::decode::{decode, Decoded, TlValue};
use etl::{EtlFile, Event};
use std::collections::BTreeMap;

/// A command line: the image part (kept, but redacted like any text) and
/// the arguments (replaced).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CommandLine {
    pub image: String,
    /// What separates image and arguments (spaces, a closing quote).
    pub gap: String,
    pub args: String,
}

/// What the first pass found, each original once.
#[derive(Debug, Default)]
pub struct Found {
    /// Original (as first seen) by category.
    pub items: BTreeMap<(Category, String), ()>,
    pub command_lines: BTreeMap<CommandLine, ()>,
}

impl Found {
    fn add(&mut self, c: Category, s: &str) {
        let s = s.trim_matches(|ch: char| ch == '\0' || ch.is_whitespace());
        if s.chars().count() >= 2 {
            self.items.insert((c, s.to_string()), ());
        }
    }

    fn merge(&mut self, other: Found) {
        self.items.extend(other.items);
        self.command_lines.extend(other.command_lines);
    }
}

/// Read every event of `file` for originals.
pub fn discover(file: &EtlFile, options: &Options) -> Found {
    let reg = trace_registry(file);
    let parts = file.par_map_buffers(|b| {
        let mut found = Found::default();
        if let Ok(b) = b {
            for ev in b.events().flatten() {
                scan_event(&ev, &reg, options, &mut found);
            }
        }
        found
    });
    let mut all = Found::default();
    for p in parts {
        all.merge(p);
    }
    all
}

fn scan_event(ev: &Event<'_>, reg: &SchemaRegistry, options: &Options, out: &mut Found) {
    for area in [ev.payload, ev.extended] {
        for run in runs(area) {
            scan_text(&run.text, options, out);
        }
    }
    match decode(ev) {
        Some(Ok(Decoded::Process(p))) => command_line(&p.command_line, out),
        Some(Ok(Decoded::CpuConfig(c))) => {
            out.add(Category::Computer, &c.computer_name);
            out.add(Category::Domain, &c.domain_name);
        }
        Some(Ok(Decoded::TraceLogging(t))) => {
            for f in &t.fields {
                if let TlValue::String(v) = &f.value {
                    named_field(&f.name, v, out);
                }
            }
        }
        _ => {}
    }
    if let Some(Ok(fields)) = reg
        .find_event(ev)
        .and_then(|row| reg.decode(row, ev.payload, ev.pointer_size))
    {
        for (name, value) in &fields {
            named_field(name, value, out);
        }
    }
}

/// A field whose name says what it holds.
fn named_field(name: &str, value: &str, out: &mut Found) {
    let n = name.to_ascii_lowercase();
    if n.contains("title") || matches!(n.as_str(), "windowtext" | "windowname" | "caption") {
        out.add(Category::Titles, value);
    } else if matches!(
        n.as_str(),
        "computername" | "machinename" | "hostname" | "computer"
    ) {
        out.add(Category::Computer, value);
    } else if matches!(
        n.as_str(),
        "username" | "accountname" | "user" | "samaccountname"
    ) {
        match value.rsplit_once('\\') {
            Some((domain, user)) => {
                out.add(Category::Domain, domain);
                out.add(Category::Users, user);
            }
            None => out.add(Category::Users, value),
        }
    } else if matches!(n.as_str(), "domainname" | "userdomain" | "domain") {
        out.add(Category::Domain, value);
    } else if n == "commandline" {
        command_line(value, out);
    }
}

/// Profile folders under which the next component is a user's.
const PROFILE_ROOTS: [&str; 4] = [
    "\\users\\",
    "/users/",
    "\\documents and settings\\",
    "/home/",
];

/// Profile folders that are nobody's.
const SHARED_PROFILES: [&str; 6] = [
    "public",
    "default",
    "default user",
    "all users",
    "defaultuser0",
    "desktop.ini",
];

/// The rules that read one string.
pub fn scan_text(s: &str, options: &Options, out: &mut Found) {
    let lower = s.to_ascii_lowercase();
    if options.wants(Category::Users) || options.wants(Category::Domain) {
        for root in PROFILE_ROOTS {
            for (at, _) in lower.match_indices(root) {
                profile_folder(component(&s[at + root.len()..]), out);
            }
        }
    }
    environment(s, out);
    if options.wants(Category::CommandLines) {
        if let Some(cl) = exe_command_line(s) {
            out.command_lines.insert(cl, ());
        }
    }
    if options.wants(Category::Paths) {
        for prefix in &options.path_prefixes {
            paths_under(s, &lower, prefix, out);
        }
    }
    if options.wants(Category::Network) {
        for a in ipv4_addresses(s).into_iter().chain(ipv6_addresses(s)) {
            out.add(Category::Network, a);
        }
    }
}

/// The path component at the start of `s`.
fn component(s: &str) -> &str {
    let end = s
        .find(['\\', '/', '"', ';', '|', '<', '>', '*', '?', ',', ':'])
        .unwrap_or(s.len());
    &s[..end]
}

/// `NAME`, `NAME.DOMAIN` or an 8.3 `NAME~1.DOM` profile folder.
fn profile_folder(c: &str, out: &mut Found) {
    let c = c.trim();
    let lc = c.to_ascii_lowercase();
    if c.is_empty() || SHARED_PROFILES.contains(&lc.as_str()) || c.contains(['%', '$', '{']) {
        return;
    }
    let (name, domain) = c.split_once('.').unwrap_or((c, ""));
    // An 8.3 short name: the letters before `~` are the name's first ones.
    let name = match name.split_once('~') {
        Some((head, _)) => head,
        None => name,
    };
    out.add(Category::Users, name);
    if !c.contains('~') && !domain.is_empty() {
        out.add(Category::Domain, domain);
    }
}

/// Environment variables whose values name the user, the machine or a
/// secret, whatever their length.
const SENSITIVE_VARS: [&str; 16] = [
    "USERNAME",
    "USER",
    "USERDOMAIN",
    "USERDNSDOMAIN",
    "USERDOMAIN_ROAMINGPROFILE",
    "COMPUTERNAME",
    "HOSTNAME",
    "LOGONSERVER",
    "CLIENTNAME",
    "USERPROFILE",
    "HOMEPATH",
    "HOME",
    "APPDATA",
    "LOCALAPPDATA",
    "ONEDRIVE",
    "TEMP",
];

/// `NAME=VALUE` with an upper-case name, as environment blocks hold them.
fn environment(s: &str, out: &mut Found) {
    let Some((name, value)) = s.split_once('=') else {
        return;
    };
    let upper = name.len() >= 2
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
        && name.as_bytes()[0].is_ascii_uppercase();
    if !upper {
        return;
    }
    let value = value.trim();
    let secret = [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PWD",
        "KEY",
        "AUTH",
        "CREDENTIAL",
    ]
    .iter()
    .any(|w| name.contains(w));
    let category = match name {
        "USERNAME" | "USER" => Category::Users,
        "COMPUTERNAME" | "HOSTNAME" | "CLIENTNAME" => Category::Computer,
        "USERDOMAIN" | "USERDNSDOMAIN" | "USERDOMAIN_ROAMINGPROFILE" => Category::Domain,
        "LOGONSERVER" => {
            out.add(Category::Computer, value.trim_start_matches('\\'));
            return;
        }
        _ => Category::Environment,
    };
    if category != Category::Environment
        || secret
        || SENSITIVE_VARS.contains(&name)
        || value.chars().count() >= 8
    {
        out.add(category, value);
    }
}

/// Image file extensions that end the image part of a command line.
const IMAGE_EXTENSIONS: [&str; 4] = [".exe", ".com", ".bat", ".cmd"];

/// `IMAGE ARGS` where IMAGE ends in `.exe` (or `.com`, `.bat`, `.cmd`),
/// quoted or not.
pub fn exe_command_line(s: &str) -> Option<CommandLine> {
    let lower = s.to_ascii_lowercase();
    let end = IMAGE_EXTENSIONS
        .iter()
        .filter_map(|e| {
            lower.match_indices(e).map(|(i, _)| i + e.len()).find(|&j| {
                matches!(
                    lower.as_bytes().get(j),
                    None | Some(b' ') | Some(b'"') | Some(b'\t')
                )
            })
        })
        .min()?;
    // The image starts at its opening quote, or at the start of its
    // space-free token (a run may begin with bytes that only look like text).
    let head = &s[..end];
    let start = match head.rfind('"') {
        Some(q) => q,
        None => head.rfind([' ', '\t']).map_or(0, |i| i + 1),
    };
    // A run may begin with a byte or two of the field before the string:
    // the image starts at its drive (`C:\`), `%VAR%`, `\` or quote if it has one.
    let token = &s[start..end];
    let drive = token.find(":\\").filter(|&i| i > 0).map(|i| i - 1);
    let quote = token.find('"');
    let start = start
        + match (quote, drive) {
            (Some(q), Some(d)) => q.min(d),
            (Some(q), None) => q,
            (None, Some(d)) => d,
            (None, None) => token.find(['%', '\\']).unwrap_or(0),
        };
    let start = s[start..end]
        .char_indices()
        .find(|(_, c)| c.is_ascii())
        .map_or(end, |(i, _)| start + i);
    split_args(&s[start..], end - start)
}

/// Split at `image_end`: the arguments are what follows the quote and blanks.
fn split_args(s: &str, image_end: usize) -> Option<CommandLine> {
    let rest = s.get(image_end..)?;
    let quote = if rest.starts_with('"') && s.starts_with('"') {
        1
    } else {
        0
    };
    let after = &rest[quote..];
    let args = after.trim_start();
    let gap_len = quote + after.len() - args.len();
    let args = args.trim_end();
    if args.is_empty() {
        return None;
    }
    Some(CommandLine {
        image: s[..image_end].to_string(),
        gap: rest[..gap_len].to_string(),
        args: args.to_string(),
    })
}

/// A command line from a field that holds one (Process events'
/// CommandLine): the image is its first token, quoted or not.
fn command_line(s: &str, out: &mut Found) {
    if let Some(cl) = exe_command_line(s) {
        out.command_lines.insert(cl, ());
        return;
    }
    let s = s.trim_matches(|c: char| c == '\0' || c.is_whitespace());
    let image_end = if let Some(rest) = s.strip_prefix('"') {
        rest.find('"').map_or(s.len(), |i| i + 1)
    } else {
        s.find([' ', '\t']).unwrap_or(s.len())
    };
    if let Some(cl) = split_args(s, image_end) {
        out.command_lines.insert(cl, ());
    }
}

/// The paths below `prefix` in `s`: each as `\` + the part below.
fn paths_under(s: &str, lower: &str, prefix: &str, out: &mut Found) {
    let p = prefix.to_ascii_lowercase().replace('/', "\\");
    // `C:\src` is also `\Device\HarddiskVolume3\src`: match without the drive.
    let p = p
        .get(2..)
        .filter(|_| p.as_bytes().get(1) == Some(&b':'))
        .unwrap_or(&p);
    let p = format!("\\{}\\", p.trim_matches('\\'));
    if p.len() < 3 {
        return;
    }
    for (at, _) in lower.match_indices(&p) {
        let tail = &s[at + p.len()..];
        let end = tail
            .find(['"', ';', '|', '<', '>', '*', '?', ','])
            .unwrap_or(tail.len());
        let tail = tail[..end].trim_end();
        if !tail.is_empty() {
            out.add(Category::Paths, &format!("\\{tail}"));
        }
    }
}

/// Dotted IPv4 addresses in text, but not versions (`4.0.0.0`,
/// `Version=1.2.3.4`) or the unspecified, loopback and broadcast ones.
pub fn ipv4_addresses(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit()
            || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'))
        {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut octets = Vec::new();
        loop {
            let k = j;
            while j < b.len() && b[j].is_ascii_digit() && j - k < 4 {
                j += 1;
            }
            let Ok(v) = s[k..j].parse::<u32>() else { break };
            if j - k > 3 || v > 255 {
                break;
            }
            octets.push(v);
            if octets.len() == 4 || j >= b.len() || b[j] != b'.' {
                break;
            }
            j += 1;
        }
        // Delimited as addresses are in text (`host 1.2.3.4:80`, `=1.2.3.4;`),
        // not as versions are (`v1.2.3.4`, `1.2.3.4-beta`, `Version=1.2.3.4`).
        let opens = i == 0 || b" =/[(\"'@,;:".contains(&b[i - 1]);
        let ends = j >= b.len() || b" :/])\"',;".contains(&b[j]);
        let version = s[..i]
            .to_ascii_lowercase()
            .trim_end_matches(['=', ' ', ':'])
            .ends_with("version");
        // Unspecified, loopback, broadcast, and x.y.z.0: a network or a version.
        let boring = matches!(
            octets.as_slice(),
            [0, ..] | [127, ..] | [255, 255, 255, 255] | [_, _, _, 0]
        );
        if octets.len() == 4 && opens && ends && !version && !boring {
            out.push(&s[i..j]);
        }
        i = j.max(i + 1);
    }
    out
}

/// Textual IPv6 addresses (`2001:db8::1`, `fe80::5efe:10.1.2.3`): hex
/// groups and colons with `::` or at least five colons, at least one group
/// of three or more characters; not `::1` or `::`.
pub fn ipv6_addresses(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let part = |c: u8| c.is_ascii_hexdigit() || c == b':' || c == b'.';
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !part(b[i]) || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < b.len() && part(b[j]) {
            j += 1;
        }
        let cand = s[i..j].trim_end_matches(['.', ':']);
        let alone = j >= b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_');
        let colons = cand.matches(':').count();
        let long_group = cand.split([':', '.']).any(|g| g.len() >= 3);
        let shape = (cand.contains("::") && colons >= 2) || colons >= 5;
        let groups_ok = cand.split(':').all(|g| g.len() <= 4 || g.contains('.'));
        if alone && shape && long_group && groups_ok && cand != "::1" {
            out.push(cand);
        }
        i = j.max(i + 1);
    }
    out
}

/// The needles of what was found, with their replacements.
pub fn needles(found: &Found, options: &Options) -> Matcher {
    let salt = options.salt;
    let mut by_key: BTreeMap<String, Needle> = BTreeMap::new();
    for (category, original) in found.items.keys() {
        if !options.wants(*category) {
            continue;
        }
        let key = original.to_ascii_lowercase();
        let replacement = match category {
            Category::Paths => mask_path(&key, salt),
            Category::Network => mask_address(&key, salt),
            _ => mask(&key, salt, Keep::Punctuation),
        };
        add(&mut by_key, key, replacement, *category);
    }
    if options.wants(Category::CommandLines) {
        // The image part of a command line keeps its name but loses what
        // the other categories replace (a user's folder in its path).
        let base = Matcher::new(by_key.values().cloned().collect());
        // Images keep their names: an argument that names one (`-ServerName:X`
        // of X.exe) is no needle of its own, or the kept image would hold it.
        let images: Vec<String> = found
            .command_lines
            .keys()
            .map(|cl| cl.image.to_ascii_lowercase())
            .collect();
        let in_an_image = |key: &str| images.iter().any(|i| i.contains(key));
        for cl in found.command_lines.keys() {
            let args = mask(&cl.args, salt, Keep::Punctuation);
            let whole = format!("{}{}{}", cl.image, cl.gap, cl.args).to_ascii_lowercase();
            let replacement =
                format!("{}{}{}", base.redact_str(&cl.image), cl.gap, args).to_ascii_lowercase();
            add(&mut by_key, whole, replacement, Category::CommandLines);
            // Long arguments are replaced wherever else they appear too, and
            // so are secret-like values in them (a fragment of the command
            // line elsewhere, `token=...` in another event, still loses them).
            if cl.args.chars().count() >= 8 && !in_an_image(&cl.args.to_ascii_lowercase()) {
                add(
                    &mut by_key,
                    cl.args.to_ascii_lowercase(),
                    args,
                    Category::CommandLines,
                );
            }
            for v in secret_like(&cl.args) {
                let key = v.to_ascii_lowercase();
                if in_an_image(&key) {
                    continue;
                }
                let replacement = mask(&key, salt, Keep::Punctuation);
                add(&mut by_key, key, replacement, Category::CommandLines);
            }
        }
    }
    Matcher::new(by_key.into_values().collect())
}

/// The arguments, and the values after `=` or `:` in them, that look like
/// secrets: 8 characters or more with a digit, or 16 or more; not paths
/// (a folder argument replaced everywhere would rename every file in it).
fn secret_like(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for token in args.split_whitespace() {
        let token = token.trim_matches(['"', '\'', ',', ';']);
        let value = token.rsplit(['=', ':']).next().unwrap_or(token);
        for t in [token, value] {
            let n = t.chars().count();
            let pathlike = t.contains(['\\', '/']);
            if !pathlike && (n >= 16 || (n >= 8 && t.bytes().any(|b| b.is_ascii_digit()))) {
                out.push(t);
            }
        }
    }
    out
}

fn add(
    by_key: &mut BTreeMap<String, Needle>,
    key: String,
    replacement: String,
    category: Category,
) {
    if key == replacement
        || key.chars().count() != replacement.chars().count()
        || by_key.contains_key(&key)
    {
        return;
    }
    by_key.insert(
        key.clone(),
        Needle {
            key,
            replacement,
            category,
        },
    );
}

/// An address's replacement: decimal digits stay decimal and hex letters
/// hex, so the text still reads as an address.
fn mask_address(a: &str, salt: Salt) -> String {
    mask(a, salt, Keep::Punctuation)
        .chars()
        .zip(a.chars())
        .map(|(m, o)| match o {
            'a'..='f' => char::from(b'a' + (m as u8).wrapping_sub(b'a') % 6),
            _ => m,
        })
        .collect()
}

/// A path's replacement component by component, so a folder is replaced
/// alike in every path below it; extensions stay.
fn mask_path(path: &str, salt: Salt) -> String {
    path.split('\\')
        .map(|c| mask(c, salt, Keep::Extensions))
        .collect::<Vec<_>>()
        .join("\\")
}

#[cfg(test)]
mod tests;
