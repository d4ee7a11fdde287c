//! Regions of Interest: the instances of a regions file's regions among the
//! trace's Generic Events (any provider: kernel, manifest, TraceLogging,
//! EventSource), as WPA finds them: a start event, then the first stop
//! event that shares the Match keys (process, thread, activity ids, payload
//! fields) closes it; with SelfNest equal starts nest (the stop closes the
//! latest), without it a new start replaces the open one. A region with a
//! Parent keeps only the instances inside one of the parent's (sharing the
//! Match/Parent keys); Duration endpoints make an instance from one event.

use crate::generic::GenericEventTable;
use crate::images::NONE;
use crate::Trace;
use regions::{Endpoint, EventSpec, Keys, Region, RegionSet};
use rustc_hash::FxHashMap;
use std::sync::{Arc, RwLock};

/// Most instances kept per trace (a set matching every event of a huge
/// trace must not exhaust memory).
pub const MAX_INSTANCES: usize = 2_000_000;

/// A regions file's instances in one trace, by start time.
#[derive(Debug, Clone, Default)]
pub struct RegionTable {
    /// The file's name (as `--regions` or the library names it) and its
    /// definitions; `None`: no regions file.
    pub set: Option<(String, Arc<RegionSet>)>,
    /// Row in `set.regions` of each instance.
    pub region: Vec<u32>,
    /// From the NameField of the start event (else the stop's), or empty.
    pub name: Vec<String>,
    /// Process and thread rows of the start event (`NONE` unknown).
    pub process: Vec<u32>,
    pub thread: Vec<u32>,
    pub start: Vec<i64>,
    pub stop: Vec<i64>,
    /// Starts left open at the trace's end (not instances, as in WPA).
    pub unmatched_starts: u64,
    /// Whether `MAX_INSTANCES` cut the list.
    pub truncated: bool,
}

impl RegionTable {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// The Region column's text of definition `r`: its path from the root.
    pub fn path(&self, r: u32) -> String {
        self.set
            .as_ref()
            .and_then(|(_, s)| s.regions.get(r as usize))
            .map(|d| d.path.join("/"))
            .unwrap_or_default()
    }

    /// For each of `times` (sorted or not), the region of the innermost
    /// instance containing it (the latest-starting one; `[start, stop)`),
    /// `NONE` outside every instance.
    pub fn region_at(&self) -> RegionIndex {
        RegionIndex::new(self)
    }
}

/// Elementary time segments, each with the region of its innermost
/// instance: a sample's region is one binary search.
#[derive(Debug, Clone, Default)]
pub struct RegionIndex {
    bounds: Vec<i64>,
    /// Region of `[bounds[k], bounds[k + 1])`.
    owner: Vec<u32>,
}

impl RegionIndex {
    fn new(t: &RegionTable) -> RegionIndex {
        // Sweep the instance boundaries with the set of open instances.
        let mut events: Vec<(i64, bool, usize)> = Vec::with_capacity(t.len() * 2);
        for i in 0..t.len() {
            if t.stop[i] > t.start[i] {
                events.push((t.start[i], true, i));
                events.push((t.stop[i], false, i));
            }
        }
        // Closes before opens at the same time: `[start, stop)`.
        events.sort_unstable_by_key(|&(time, open, i)| (time, open, i));
        let mut open = std::collections::BTreeSet::new();
        let mut idx = RegionIndex::default();
        let mut k = 0;
        while k < events.len() {
            let time = events[k].0;
            while k < events.len() && events[k].0 == time {
                let (_, is_open, i) = events[k];
                if is_open {
                    open.insert((t.start[i], i));
                } else {
                    open.remove(&(t.start[i], i));
                }
                k += 1;
            }
            let owner = open.iter().next_back().map_or(NONE, |&(_, i)| t.region[i]);
            if idx.owner.last() != Some(&owner) {
                idx.bounds.push(time);
                idx.owner.push(owner);
            }
        }
        idx
    }

    pub fn at(&self, time: i64) -> u32 {
        let k = self.bounds.partition_point(|&b| b <= time);
        match k {
            0 => NONE,
            k => self.owner[k - 1],
        }
    }
}

static INSTALLED: RwLock<Option<(String, Arc<RegionSet>)>> = RwLock::new(None);

/// The regions file every trace built from now on is matched against
/// (`--regions FILE` on the command line).
pub fn install(name: &str, set: Arc<RegionSet>) {
    if let Ok(mut g) = INSTALLED.write() {
        *g = Some((name.to_string(), set));
    }
}

/// Fill `t.regions` from the installed regions file, if any.
pub(crate) fn apply_installed(t: &mut Trace) {
    let set = INSTALLED.read().ok().and_then(|g| g.clone());
    if let Some((name, set)) = set {
        t.regions = find(t, &name, set);
    }
}

/// The instances of `set`'s regions in `t`.
pub fn find(t: &Trace, name: &str, set: Arc<RegionSet>) -> RegionTable {
    let g = &t.generic;
    let providers: Vec<String> = g
        .providers
        .guid
        .iter()
        .map(|p| p.map(|g| g.to_string()).unwrap_or_default())
        .collect();
    let mut out = RegionTable {
        set: Some((name.to_string(), set.clone())),
        ..RegionTable::default()
    };
    // Instances per definition; a parent's are made before its children's.
    let mut per_region: Vec<Option<Vec<Instance>>> = vec![None; set.regions.len()];
    for _pass in 0..=regions::MAX_DEPTH {
        let mut progressed = false;
        for (r, def) in set.regions.iter().enumerate() {
            if per_region[r].is_some() {
                continue;
            }
            if !def.is_timed() {
                per_region[r] = Some(Vec::new());
                progressed = true;
                continue;
            }
            let parent = match &def.parent {
                None => None,
                Some(p) => match set.regions.iter().position(|x| &x.guid == p) {
                    Some(pi) => match &per_region[pi] {
                        Some(v) => Some(v),
                        None => continue,
                    },
                    None => Some(&EMPTY),
                },
            };
            let mut found = instances(g, &providers, def, &mut out.unmatched_starts);
            if let Some(parents) = parent {
                found.retain(|c| inside_parent(c, parents, &def.matching.parent));
            }
            per_region[r] = Some(found);
            progressed = true;
        }
        if !progressed {
            break;
        }
    }
    let mut all: Vec<(u32, Instance)> = per_region
        .into_iter()
        .enumerate()
        .flat_map(|(r, v)| {
            v.unwrap_or_default()
                .into_iter()
                .map(move |i| (r as u32, i))
        })
        .collect();
    all.sort_by_key(|(r, i)| (i.start, i.stop, *r));
    if all.len() > MAX_INSTANCES {
        all.truncate(MAX_INSTANCES);
        out.truncated = true;
    }
    for (r, i) in all {
        out.region.push(r);
        out.process
            .push(g.process.get(i.row).copied().unwrap_or(NONE));
        out.thread
            .push(g.thread.get(i.row).copied().unwrap_or(NONE));
        out.name.push(i.name);
        out.start.push(i.start);
        out.stop.push(i.stop);
    }
    out
}

static EMPTY: Vec<Instance> = Vec::new();

#[derive(Debug, Clone)]
struct Instance {
    start: i64,
    stop: i64,
    /// The generic row of the start event (the stop's for a Stop duration).
    row: usize,
    name: String,
    /// The start event's header pid, tid and activity ids (Parent matching).
    pid: u32,
    tid: u32,
    activity: (Option<etl::Guid>, Option<etl::Guid>),
}

fn inside_parent(c: &Instance, parents: &[Instance], keys: &Keys) -> bool {
    parents.iter().any(|p| {
        p.start <= c.start
            && c.stop <= p.stop
            && (!keys.pid || p.pid == c.pid)
            && (!keys.tid || p.tid == c.tid)
            && (!keys.activity || p.activity.0 == c.activity.0)
            && (!keys.related_activity || p.activity.1 == c.activity.1)
    })
}

fn spec_matches(g: &GenericEventTable, providers: &[String], row: usize, s: &EventSpec) -> bool {
    let p = g.provider.get(row).copied().unwrap_or(u32::MAX) as usize;
    providers.get(p).is_some_and(|x| *x == s.provider)
        && s.id.is_none_or(|id| g.id.get(row) == Some(&id))
        && s.version.is_none_or(|v| g.version.get(row) == Some(&v))
        && s.opcode.is_none_or(|o| g.opcode.get(row) == Some(&o))
}

/// A field's value by name (exact, then ignoring case).
fn field<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v.as_str())
}

/// Whether row `row` is an event of endpoint `e` (its fields decoded once, into `fields`).
fn endpoint_matches(
    g: &GenericEventTable,
    providers: &[String],
    row: usize,
    e: &Endpoint,
    fields: &mut Option<Vec<(String, String)>>,
) -> bool {
    if !e.events.iter().any(|s| spec_matches(g, providers, row, s)) {
        return false;
    }
    if e.payload.is_empty() {
        return true;
    }
    let f = fields.get_or_insert_with(|| g.fields(row));
    e.payload
        .iter()
        .all(|(name, value)| field(f, name) == Some(value.as_str()))
}

/// What a start and its stop must share: `stop_side` reads each payload
/// key's target field.
fn key_of(
    g: &GenericEventTable,
    row: usize,
    keys: &Keys,
    fields: &mut Option<Vec<(String, String)>>,
    stop_side: bool,
) -> Vec<String> {
    let mut k = Vec::new();
    if keys.pid {
        k.push(g.pid.get(row).copied().unwrap_or(u32::MAX).to_string());
    }
    if keys.tid {
        k.push(g.tid.get(row).copied().unwrap_or(u32::MAX).to_string());
    }
    let act = g
        .activity
        .get(&(row as u32))
        .copied()
        .unwrap_or((None, None));
    if keys.activity {
        k.push(act.0.map(|a| a.to_string()).unwrap_or_default());
    }
    if keys.related_activity {
        k.push(act.1.map(|a| a.to_string()).unwrap_or_default());
    }
    if !keys.payload.is_empty() {
        let f = fields.get_or_insert_with(|| g.fields(row));
        for (start_field, stop_field) in &keys.payload {
            let name = if stop_side { stop_field } else { start_field };
            k.push(field(f, name).unwrap_or_default().to_string());
        }
    }
    k
}

fn duration_ns(
    g: &GenericEventTable,
    row: usize,
    e: &Endpoint,
    fields: &mut Option<Vec<(String, String)>>,
) -> Option<i64> {
    let d = e.duration.as_ref()?;
    let f = fields.get_or_insert_with(|| g.fields(row));
    let v = field(f, &d.field)?.trim();
    let n: i64 = match v.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => v.parse().ok()?,
    };
    n.checked_mul(d.multiplier).filter(|&n| n >= 0)
}

fn instance(
    g: &GenericEventTable,
    def: &Region,
    row: usize,
    start: i64,
    stop: i64,
    fields: &mut Option<Vec<(String, String)>>,
) -> Instance {
    let name = match &def.name_field {
        Some(nf) => {
            let f = fields.get_or_insert_with(|| g.fields(row));
            field(f, nf).unwrap_or_default().to_string()
        }
        None => String::new(),
    };
    Instance {
        start,
        stop,
        row,
        name,
        pid: g.pid.get(row).copied().unwrap_or(u32::MAX),
        tid: g.tid.get(row).copied().unwrap_or(u32::MAX),
        activity: g
            .activity
            .get(&(row as u32))
            .copied()
            .unwrap_or((None, None)),
    }
}

/// The instances of one timed region.
fn instances(
    g: &GenericEventTable,
    providers: &[String],
    def: &Region,
    unmatched: &mut u64,
) -> Vec<Instance> {
    let mut out = Vec::new();
    let (Some(start), stop) = (def.start.as_ref(), def.stop.as_ref()) else {
        // A Stop with a Duration alone.
        if let Some(stop) = def.stop.as_ref() {
            for row in 0..g.len() {
                let mut fields = None;
                if out.len() < MAX_INSTANCES
                    && endpoint_matches(g, providers, row, stop, &mut fields)
                {
                    if let Some(d) = duration_ns(g, row, stop, &mut fields) {
                        let t = g.time[row];
                        out.push(instance(g, def, row, t.saturating_sub(d), t, &mut fields));
                    }
                }
            }
        }
        return out;
    };
    let nest = def.matching.self_nest.is_some();
    // Open starts per Match key: (time, row, name).
    let mut open: FxHashMap<Vec<String>, Vec<Instance>> = FxHashMap::default();
    for row in 0..g.len() {
        if out.len() >= MAX_INSTANCES {
            break;
        }
        let time = g.time[row];
        let mut fields = None;
        let is_start = endpoint_matches(g, providers, row, start, &mut fields);
        let is_stop = stop.is_some_and(|s| endpoint_matches(g, providers, row, s, &mut fields));
        if is_start && start.duration.is_some() {
            if let Some(d) = duration_ns(g, row, start, &mut fields) {
                out.push(instance(
                    g,
                    def,
                    row,
                    time,
                    time.saturating_add(d),
                    &mut fields,
                ));
            }
            continue;
        }
        if let (true, Some(stop)) = (is_stop, stop) {
            if stop.duration.is_some() {
                if let Some(d) = duration_ns(g, row, stop, &mut fields) {
                    out.push(instance(
                        g,
                        def,
                        row,
                        time.saturating_sub(d),
                        time,
                        &mut fields,
                    ));
                }
            } else {
                let key = key_of(g, row, &def.matching.event, &mut fields, true);
                if let Some(mut i) = open.get_mut(&key).and_then(Vec::pop) {
                    i.stop = time;
                    if i.name.is_empty() {
                        if let Some(nf) = &def.name_field {
                            let f = fields.get_or_insert_with(|| g.fields(row));
                            i.name = field(f, nf).unwrap_or_default().to_string();
                        }
                    }
                    out.push(i);
                }
            }
        }
        if is_start {
            let key = key_of(g, row, &def.matching.event, &mut fields, false);
            let i = instance(g, def, row, time, time, &mut fields);
            let list = open.entry(key).or_default();
            if !nest {
                *unmatched += list.len() as u64;
                list.clear();
            }
            if list.len() < 4096 {
                list.push(i);
            }
        }
    }
    *unmatched += open.values().map(|v| v.len() as u64).sum::<u64>();
    out
}

/// Marks: `xperf -m` / `wpr -marker` labels. The kernel logs them as
/// PerfInfo hook 0x0F22 (PERFINFO_LOG_TYPE_MARK; 0x0F24, ASYNCMARK, the
/// same layout) with a NUL-terminated UTF-16 label as the whole payload:
/// ntwmi.h (`PERFINFO_LOG_TYPE_MARK`, `PERFINFO_LOG_TYPE_ASYNCMARK`) and
/// `WmiSetMark` in the Windows Research Kernel (base/ntos/wmi).
pub const MARK_HOOKS: [u16; 2] = [0x0F22, 0x0F24];

/// The Marks table: one row per mark, by time.
#[derive(Debug, Clone, Default)]
pub struct MarkTable {
    pub time: Vec<i64>,
    pub label: Vec<String>,
    pub process: Vec<u32>,
    pub thread: Vec<u32>,
}

impl MarkTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// The mark label of a payload: UTF-16LE up to the first NUL (at most 4096 units).
pub fn mark_label(payload: &[u8]) -> String {
    let units: Vec<u16> = payload
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .take(4096)
        .collect();
    String::from_utf16_lossy(&units)
}

/// Marks among the generic rows.
pub fn find_marks(g: &GenericEventTable) -> MarkTable {
    let mut m = MarkTable::default();
    for row in 0..g.len() {
        let kernel = g
            .provider
            .get(row)
            .and_then(|&p| g.providers.kernel_group.get(p as usize))
            .copied()
            .flatten();
        let is_mark =
            kernel == Some(0x0F) && g.id.get(row).is_some_and(|id| MARK_HOOKS.contains(id));
        if !is_mark {
            continue;
        }
        m.time.push(g.time[row]);
        m.label.push(mark_label(g.payload(row)));
        m.process.push(g.process.get(row).copied().unwrap_or(NONE));
        m.thread.push(g.thread.get(row).copied().unwrap_or(NONE));
    }
    m
}
