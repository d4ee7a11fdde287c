//! `etlscope redact`: a copy of a trace with what identifies its recorder
//! replaced, the same original by the same replacement everywhere.
//!
//! Every replacement has the length of its original, so no event, size,
//! offset, timestamp or stack moves: the copy holds the same events in the
//! same buffers. Three passes: [`discover`] reads every event (text runs of
//! any payload, the typed decoders, the trace's schemas) for the originals;
//! [`rewrite`] writes each member's buffers with the replacements
//! (compressed buffers are written decompressed); [`verify`] searches the
//! whole output, headers and gaps included, and refuses the copy with the
//! offset of any original left, so a trace is never half-redacted.

pub mod discover;
pub mod marker;
pub mod mask;
pub mod matcher;
mod net;
pub mod report;
pub mod rewrite;
pub mod text;
pub mod verify;

pub use report::Report;

use etl::EtlFile;

/// What can be replaced; each can be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// User names: profile folders (`C:\Users\NAME\`), `USERNAME=`, user fields.
    Users,
    /// The computer's name (SysConfig, `COMPUTERNAME=`, computer fields).
    Computer,
    /// The domain (SysConfig, profile folders `NAME.DOMAIN`, `USERDOMAIN=`).
    Domain,
    /// Command-line arguments (the image stays).
    CommandLines,
    /// Window titles (schema fields named like a title).
    Titles,
    /// Paths under the prefixes asked for, component by component.
    Paths,
    /// IP addresses: text, and the kernel TcpIp/UdpIp events' binary fields.
    Network,
    /// Values of environment-like `NAME=VALUE` strings.
    Environment,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Users,
        Category::Computer,
        Category::Domain,
        Category::CommandLines,
        Category::Titles,
        Category::Paths,
        Category::Network,
        Category::Environment,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Users => "users",
            Category::Computer => "computer",
            Category::Domain => "domain",
            Category::CommandLines => "command-lines",
            Category::Titles => "titles",
            Category::Paths => "paths",
            Category::Network => "network",
            Category::Environment => "environment",
        }
    }

    pub fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// What to replace.
#[derive(Debug, Clone)]
pub struct Options {
    /// Categories left as they are.
    pub keep: Vec<Category>,
    /// Folders whose files' paths are replaced (the part below the prefix,
    /// component by component, extensions kept), e.g. `C:\src`.
    pub path_prefixes: Vec<String>,
    /// The salt of the replacements (random unless a test fixes it).
    pub salt: mask::Salt,
}

impl Options {
    pub fn all() -> Options {
        Options {
            keep: Vec::new(),
            path_prefixes: Vec::new(),
            salt: mask::Salt::random(),
        }
    }

    pub fn wants(&self, c: Category) -> bool {
        !self.keep.contains(&c)
    }
}

/// A redacted trace: one file per member of the input, in its order.
pub struct Redacted {
    pub members: Vec<(String, Vec<u8>)>,
    pub report: Report,
    /// Whether every member carries the mark of a redacted copy ([`marker`]).
    pub marked: bool,
    /// The replacements, for names that go with the copy (a library entry's).
    pub matcher: matcher::Matcher,
}

/// Why a trace was not redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedactError {
    /// The member (file) concerned.
    pub member: String,
    /// Offset in the input member where the problem is.
    pub offset: u64,
    pub message: String,
}

impl std::fmt::Display for RedactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at offset {:#x}: {}",
            self.member, self.offset, self.message
        )
    }
}

impl std::error::Error for RedactError {}

/// Redact every member of `file`.
pub fn redact(file: &EtlFile, options: &Options) -> Result<Redacted, RedactError> {
    let found = discover::discover(file, options);
    let matcher = discover::needles(&found, options);
    let addresses = options.wants(Category::Network);
    let mut report = Report::new(&matcher, &found);
    let mut members = Vec::new();
    let mut marked = true;
    for (m, name) in rewrite::member_names(file).into_iter().enumerate() {
        let out = rewrite::member(file, m, &matcher, addresses, options.salt, &mut report)
            .map_err(|(offset, message)| RedactError {
                member: name.clone(),
                offset,
                message,
            })?;
        verify::clean(&out.bytes, &out.origins, &matcher).map_err(|(offset, message)| {
            RedactError {
                member: name.clone(),
                offset,
                message,
            }
        })?;
        let mut bytes = out.bytes;
        marked &= marker::stamp(&mut bytes);
        // A member's name can hold a user's folder too.
        members.push((matcher.redact_str(&name), bytes));
    }
    report.finish(&matcher);
    Ok(Redacted {
        members,
        report,
        marked,
        matcher,
    })
}
