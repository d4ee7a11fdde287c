//! WPA's `.stacktags` files, the format of WPA's catalog and of UIforETW's
//! `default.stacktags`: read within bounds ([`parse`]), their
//! `Module!Method` wildcards ([`pattern`]) and the first, deepest match of
//! a frame or a stack ([`matcher`]). The query crate turns matches into the
//! Stack Tag column; this crate knows nothing of traces, so the fuzzer
//! builds it alone.

pub mod matcher;
pub mod parse;
pub mod pattern;

pub use matcher::Matcher;
pub use parse::{ParseError, ParseErrorKind, TagSet};
