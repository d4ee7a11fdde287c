//! WPA's Regions of Interest files: named time ranges between a start and
//! a stop event (Microsoft, "Creating a Regions of Interest File",
//! learn.microsoft.com/windows-hardware/test/wpt/creating-a-regions-of-interest-file).
//!
//! This crate only reads the file into [`RegionSet`]; `model::regions`
//! finds the instances among a trace's events.

mod parse;

pub use parse::{parse, Error, MAX_BYTES, MAX_DEPTH, MAX_NODES, MAX_REGIONS};

/// A regions file: every region definition, depth first (a parent before
/// its children), and what was read past.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionSet {
    pub regions: Vec<Region>,
    /// Elements and attributes not understood (each once, with its line):
    /// the file still loads, these parts are left out.
    pub notices: Vec<String>,
}

/// One `RegionRoot` or `Region` element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Region {
    /// Lowercase, without braces.
    pub guid: String,
    pub name: String,
    /// `FriendlyName`, else `Name`: what WPA shows.
    pub label: String,
    /// Index in `RegionSet::regions` of the enclosing RegionRoot/Region.
    pub container: Option<usize>,
    /// Labels from the root down to this one (WPA's Region tree).
    pub path: Vec<String>,
    /// None for a RegionRoot or a grouping Region without Start/Stop.
    pub start: Option<Endpoint>,
    pub stop: Option<Endpoint>,
    pub matching: Match,
    /// `<Parent Region="{guid}"/>`: instances only inside that region's.
    pub parent: Option<String>,
    /// `<Naming><PayloadBased NameField="..."/></Naming>`.
    pub name_field: Option<String>,
    pub line: u32,
}

impl Region {
    /// Whether the region has instances of its own: a start and a stop,
    /// or one of them with a duration.
    pub fn is_timed(&self) -> bool {
        let timed = |e: &Option<Endpoint>| e.as_ref().is_some_and(|e| e.duration.is_some());
        (self.start.is_some() && self.stop.is_some()) || timed(&self.start) || timed(&self.stop)
    }
}

/// Which events start (or stop) a region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoint {
    /// Alternatives: any of these events.
    pub events: Vec<EventSpec>,
    /// `<PayloadIdentifier FieldName= FieldValue=/>`: each must hold.
    pub payload: Vec<(String, String)>,
    /// `<Duration ... Duration="Field" Multiplier="N"/>`: the other end is
    /// this event's time plus (at a Start) or minus (at a Stop) the
    /// field's value times `multiplier` nanoseconds.
    pub duration: Option<DurationSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventSpec {
    /// Lowercase, without braces.
    pub provider: String,
    pub id: Option<u16>,
    pub version: Option<u8>,
    pub opcode: Option<u8>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DurationSpec {
    pub field: String,
    /// Nanoseconds per unit of the field (1 when absent).
    pub multiplier: i64,
}

/// `<Match>`: what a stop must share with its start, and with the parent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Match {
    pub event: Keys,
    /// `<Parent PID= TID= .../>`: what an instance shares with its parent's.
    pub parent: Keys,
    /// `<SelfNest PID= TID= .../>`: starts with equal keys nest (the stop
    /// closes the latest open start) instead of the latest replacing the open one.
    pub self_nest: Option<Keys>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Keys {
    pub pid: bool,
    pub tid: bool,
    pub activity: bool,
    pub related_activity: bool,
    /// (start's field, stop's field) that must have equal values.
    pub payload: Vec<(String, String)>,
}

impl Keys {
    pub fn is_empty(&self) -> bool {
        !self.pid
            && !self.tid
            && !self.activity
            && !self.related_activity
            && self.payload.is_empty()
    }
}

/// A GUID as the set keeps it: lowercase, no braces; `None` unless
/// 8-4-4-4-12 hex digits.
pub fn normalize_guid(s: &str) -> Option<String> {
    let t = s.trim();
    let t = t.strip_prefix('{').unwrap_or(t);
    let t = t.strip_suffix('}').unwrap_or(t);
    let groups: Vec<&str> = t.split('-').collect();
    let sizes = [8, 4, 4, 4, 12];
    let ok = groups.len() == 5
        && groups
            .iter()
            .zip(sizes)
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()));
    ok.then(|| t.to_ascii_lowercase())
}
