//! The XML of a regions file into a [`RegionSet`].
//!
//! Untrusted input: the size, the node count, the regions' nesting and
//! their number are bounded, DTDs are refused, nothing recurses on the
//! input (regions are walked with an explicit stack), and every error
//! names its line. Elements this reader does not know are notices.

use crate::{normalize_guid, DurationSpec, Endpoint, EventSpec, Keys, Match, Region, RegionSet};
use boundedxml::{clip, Limits, Node, Xml};

/// Largest file read (real ones are a few KiB).
pub const MAX_BYTES: usize = 4 << 20;
/// Most XML nodes.
pub const MAX_NODES: u32 = 200_000;
/// Most region definitions.
pub const MAX_REGIONS: usize = 10_000;
/// Deepest nesting of Region elements.
pub const MAX_DEPTH: usize = 32;
/// Most events, payload tests and keys in one region.
const MAX_PARTS: usize = 256;
/// Longest text kept from an attribute.
const MAX_TEXT: usize = 1_000;
/// Most notices kept.
const MAX_NOTICES: usize = 100;

pub use boundedxml::Error;

fn err(line: u32, message: impl Into<String>) -> Error {
    Error::new(line, message)
}

const LIMITS: Limits = Limits {
    what: "the file",
    max_bytes: MAX_BYTES,
    max_nodes: MAX_NODES,
};

struct Reader<'d> {
    xml: &'d Xml<'d>,
    notices: Vec<String>,
}

impl<'d> Reader<'d> {
    fn line(&self, n: Node) -> u32 {
        self.xml.line(n)
    }

    fn notice(&mut self, n: Node, what: &str) {
        let text = format!("line {}: {what}", self.line(n));
        if self.notices.len() < MAX_NOTICES && !self.notices.contains(&text) {
            self.notices.push(text);
        }
    }

    fn unknown(&mut self, n: Node, parent: &str) {
        let name = n.tag_name().name();
        self.notice(n, &format!("<{name}> in <{parent}> is not read"));
    }

    /// Attribute `name` (any case), at most `MAX_TEXT` characters.
    fn attr(&self, n: Node, name: &str) -> Option<String> {
        let a = n
            .attributes()
            .find(|a| a.name().eq_ignore_ascii_case(name))?;
        Some(clip(a.value(), MAX_TEXT))
    }

    fn guid(&self, n: Node, name: &str) -> Result<Option<String>, Error> {
        match self.attr(n, name) {
            None => Ok(None),
            Some(v) => normalize_guid(&v)
                .map(Some)
                .ok_or_else(|| err(self.line(n), format!("{name}={v:?} is not a GUID"))),
        }
    }

    fn number<T: std::str::FromStr>(&self, n: Node, name: &str) -> Result<Option<T>, Error> {
        let Some(v) = self.attr(n, name) else {
            return Ok(None);
        };
        let t = v.trim();
        let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16)
                .ok()
                .and_then(|x| x.to_string().parse().ok()),
            None => t.parse().ok(),
        };
        parsed.map(Some).ok_or_else(|| {
            err(
                self.line(n),
                format!("{name}={v:?} is not a number in range"),
            )
        })
    }

    fn flag(&self, n: Node, name: &str) -> Result<bool, Error> {
        match self.attr(n, name) {
            None => Ok(false),
            Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => Ok(false),
            Some(v) => Err(err(
                self.line(n),
                format!("{name}={v:?}: expected true or false"),
            )),
        }
    }

    fn required(&self, n: Node, name: &str) -> Result<String, Error> {
        self.attr(n, name)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| {
                err(
                    self.line(n),
                    format!("<{}> needs a {name} attribute", n.tag_name().name()),
                )
            })
    }

    fn event(&self, n: Node) -> Result<EventSpec, Error> {
        let provider = self.guid(n, "Provider")?.ok_or_else(|| {
            err(
                self.line(n),
                format!("<{}> needs a Provider GUID", n.tag_name().name()),
            )
        })?;
        Ok(EventSpec {
            provider,
            id: self.number(n, "Id")?,
            version: self.number(n, "Version")?,
            opcode: self.number(n, "Opcode")?,
        })
    }

    fn endpoint(&mut self, n: Node) -> Result<Endpoint, Error> {
        let mut e = Endpoint::default();
        let what = n.tag_name().name().to_string();
        for c in n.children().filter(Node::is_element) {
            if e.events.len() + e.payload.len() >= MAX_PARTS {
                return Err(err(
                    self.line(c),
                    format!("more than {MAX_PARTS} parts in <{what}>"),
                ));
            }
            match c.tag_name().name() {
                "Event" => e.events.push(self.event(c)?),
                "PayloadIdentifier" => e.payload.push((
                    self.required(c, "FieldName")?,
                    self.attr(c, "FieldValue").unwrap_or_default(),
                )),
                "Duration" => {
                    e.events.push(self.event(c)?);
                    let multiplier = self.number::<i64>(c, "Multiplier")?.unwrap_or(1);
                    if multiplier <= 0 {
                        return Err(err(self.line(c), "Multiplier must be above 0"));
                    }
                    e.duration = Some(DurationSpec {
                        field: self.required(c, "Duration")?,
                        multiplier,
                    });
                }
                _ => self.unknown(c, &what),
            }
        }
        if e.events.is_empty() {
            return Err(err(self.line(n), format!("<{what}> names no <Event>")));
        }
        Ok(e)
    }

    fn keys(&mut self, n: Node) -> Result<Keys, Error> {
        let mut k = Keys {
            pid: self.flag(n, "PID")?,
            tid: self.flag(n, "TID")?,
            activity: self.flag(n, "ActivityID")?,
            related_activity: self.flag(n, "RelatedActivityID")?,
            payload: Vec::new(),
        };
        let what = n.tag_name().name().to_string();
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "Payload" if k.payload.len() < MAX_PARTS => {
                    let field = self.required(c, "FieldName")?;
                    let target = self
                        .attr(c, "TargetFieldName")
                        .unwrap_or_else(|| field.clone());
                    k.payload.push((field, target));
                }
                "Payload" => {
                    return Err(err(
                        self.line(c),
                        format!("more than {MAX_PARTS} payload keys"),
                    ))
                }
                _ => self.unknown(c, &what),
            }
        }
        Ok(k)
    }

    fn matching(&mut self, n: Node) -> Result<Match, Error> {
        let mut m = Match::default();
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "Event" => m.event = self.keys(c)?,
                "Parent" => m.parent = self.keys(c)?,
                "SelfNest" => m.self_nest = Some(self.keys(c)?),
                _ => self.unknown(c, "Match"),
            }
        }
        Ok(m)
    }

    fn naming(&mut self, n: Node) -> Option<String> {
        let mut field = None;
        for c in n.children().filter(Node::is_element) {
            match (c.tag_name().name(), self.attr(c, "NameField")) {
                ("PayloadBased", Some(f)) => field = Some(f),
                _ => self.unknown(c, "Naming"),
            }
        }
        field
    }

    /// One RegionRoot/Region element, without its child regions.
    fn region(
        &mut self,
        n: Node,
        container: Option<usize>,
        path: Vec<String>,
    ) -> Result<Region, Error> {
        let line = self.line(n);
        let what = n.tag_name().name().to_string();
        let guid = self
            .guid(n, "Guid")?
            .ok_or_else(|| err(line, format!("<{what}> needs a Guid attribute")))?;
        let name = self.required(n, "Name")?;
        let label = self
            .attr(n, "FriendlyName")
            .filter(|f| !f.trim().is_empty())
            .unwrap_or_else(|| name.clone());
        let mut path = path;
        path.push(label.clone());
        let mut r = Region {
            guid,
            name,
            label,
            container,
            path,
            line,
            ..Region::default()
        };
        for c in n.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "Region" => {}
                "Start" => r.start = Some(self.endpoint(c)?),
                "Stop" => r.stop = Some(self.endpoint(c)?),
                "Match" => r.matching = self.matching(c)?,
                "Naming" => r.name_field = self.naming(c),
                "Parent" => {
                    r.parent = Some(self.guid(c, "Region")?.ok_or_else(|| {
                        err(
                            self.line(c),
                            "<Parent> needs a Region attribute (the parent's GUID)",
                        )
                    })?)
                }
                _ => self.unknown(c, &what),
            }
        }
        let has_duration = |e: &Option<Endpoint>| e.as_ref().is_some_and(|e| e.duration.is_some());
        match (&r.start, &r.stop) {
            (Some(_), None) if !has_duration(&r.start) => {
                return Err(err(
                    line,
                    format!(
                        "region {:?} has a <Start> but no <Stop> (nor a <Duration>)",
                        r.name
                    ),
                ))
            }
            (None, Some(_)) if !has_duration(&r.stop) => {
                return Err(err(
                    line,
                    format!(
                        "region {:?} has a <Stop> but no <Start> (nor a <Duration>)",
                        r.name
                    ),
                ))
            }
            _ => {}
        }
        Ok(r)
    }
}

/// Reads a regions file. A byte-order mark is allowed.
pub fn parse(xml: &str) -> Result<RegionSet, Error> {
    let parsed = Xml::parse(xml, LIMITS)?;
    let doc = &parsed.doc;
    let mut rd = Reader {
        xml: &parsed,
        notices: Vec::new(),
    };
    let root = doc.root_element();
    if root.tag_name().name() != "InstrumentationManifest" {
        return Err(err(
            rd.line(root),
            format!(
                "<{}>: a regions file starts with <InstrumentationManifest>",
                root.tag_name().name()
            ),
        ));
    }
    let mut set = RegionSet::default();
    let mut found_regions = false;
    for inst in root.children().filter(Node::is_element) {
        if inst.tag_name().name() != "Instrumentation" {
            rd.unknown(inst, "InstrumentationManifest");
            continue;
        }
        for regions in inst.children().filter(Node::is_element) {
            if regions.tag_name().name() != "Regions" {
                rd.unknown(regions, "Instrumentation");
                continue;
            }
            found_regions = true;
            // Depth first with an explicit stack: (element, container, path, depth).
            let mut stack: Vec<(Node, Option<usize>, Vec<String>, usize)> = Vec::new();
            let roots: Vec<Node> = regions.children().filter(Node::is_element).collect();
            for r in roots.into_iter().rev() {
                if r.tag_name().name() == "RegionRoot" || r.tag_name().name() == "Region" {
                    stack.push((r, None, Vec::new(), 1));
                } else {
                    rd.unknown(r, "Regions");
                }
            }
            while let Some((n, container, path, depth)) = stack.pop() {
                if depth > MAX_DEPTH {
                    return Err(err(
                        rd.line(n),
                        format!("regions nest deeper than {MAX_DEPTH}"),
                    ));
                }
                if set.regions.len() >= MAX_REGIONS {
                    return Err(err(rd.line(n), format!("more than {MAX_REGIONS} regions")));
                }
                let r = rd.region(n, container, path)?;
                let index = set.regions.len();
                let child_path = r.path.clone();
                set.regions.push(r);
                let children: Vec<Node> = n
                    .children()
                    .filter(|c| c.is_element() && c.tag_name().name() == "Region")
                    .collect();
                for c in children.into_iter().rev() {
                    stack.push((c, Some(index), child_path.clone(), depth + 1));
                }
            }
        }
    }
    if !found_regions {
        return Err(err(
            rd.line(root),
            "no <Instrumentation><Regions> in this file: not a regions file",
        ));
    }
    // A Parent names a region of this file.
    for r in &set.regions {
        if let Some(p) = &r.parent {
            if !set.regions.iter().any(|x| &x.guid == p) {
                return Err(err(
                    r.line,
                    format!(
                        "region {:?} names parent {{{p}}}, which this file does not define",
                        r.name
                    ),
                ));
            }
        }
    }
    set.notices = rd.notices;
    Ok(set)
}
