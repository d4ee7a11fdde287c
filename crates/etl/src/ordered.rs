//! All events of a trace in timestamp order.
//!
//! Each processor's buffers form a stream whose events are in time order; the
//! streams are merged k-way. Ties between equal timestamps go to the event
//! whose buffer comes first in the file, then to the earlier event inside a
//! buffer: the order is deterministic and stable with respect to the file.

use crate::error::Diagnostic;
use crate::event::Event;
use crate::trace::EtlFile;
use crate::walk::BufferEvents;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

enum Data<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

struct Stream<'a> {
    buffers: Vec<u32>,
    next_buffer: usize,
    current: Option<(u32, Data<'a>)>,
    pos: usize,
}

impl<'a> Stream<'a> {
    fn data(&self) -> Option<(u32, &[u8])> {
        self.current.as_ref().map(|(i, d)| {
            (
                *i,
                match d {
                    Data::Borrowed(b) => *b,
                    Data::Owned(v) => v.as_slice(),
                },
            )
        })
    }

    /// Load buffers until one has an event at `pos`; return its timestamp.
    fn peek(&mut self, file: &'a EtlFile, diags: &mut Vec<Diagnostic>) -> Option<i64> {
        loop {
            if let Some((index, data)) = self.data() {
                let info = &file.buffers()[index as usize];
                let mut it = BufferEvents::at(data, self.pos, info.cpu(), index);
                match it.next() {
                    Some(Ok(e)) => return Some(e.timestamp),
                    Some(Err(w)) => diags.push(info.walk_diagnostic(&w)),
                    None => {}
                }
                self.current = None;
            }
            let index = *self.buffers.get(self.next_buffer)?;
            self.next_buffer += 1;
            self.pos = 0;
            let info = &file.buffers()[index as usize];
            if info.header.is_compressed() {
                let mut scratch = Vec::new();
                match file.buffer_data(info, &mut scratch) {
                    Ok(_) => self.current = Some((index, Data::Owned(scratch))),
                    Err(d) => diags.push(d),
                }
            } else {
                let data = file.bytes_of(info).get(info.data_range()).unwrap_or(&[]);
                self.current = Some((index, Data::Borrowed(data)));
            }
        }
    }
}

pub fn for_each_event_in_order<F>(file: &EtlFile, mut f: F) -> Vec<Diagnostic>
where
    F: FnMut(&Event<'_>),
{
    // One stream per processor of each file of the trace.
    let mut by_cpu: BTreeMap<(u16, u16), Vec<u32>> = BTreeMap::new();
    for b in file.buffers() {
        by_cpu.entry((b.member, b.cpu())).or_default().push(b.index);
    }
    let mut streams: Vec<Stream<'_>> = by_cpu
        .into_values()
        .map(|buffers| Stream {
            buffers,
            next_buffer: 0,
            current: None,
            pos: 0,
        })
        .collect();
    let mut diags = Vec::new();
    let mut heap = BinaryHeap::new();
    for (i, s) in streams.iter_mut().enumerate() {
        if let Some(ts) = s.peek(file, &mut diags) {
            heap.push(Reverse((ts, s.current_index(), s.pos, i)));
        }
    }
    while let Some(Reverse((_, _, _, i))) = heap.pop() {
        let s = &mut streams[i];
        // Drain this stream while it stays at or before every other stream.
        let bound = heap.peek().map(|Reverse(k)| (k.0, k.1, k.2));
        while let Some((index, data)) = s.data() {
            let info = &file.buffers()[index as usize];
            let mut it = BufferEvents::at(data, s.pos, info.cpu(), index);
            let Some(Ok(e)) = it.next() else { break };
            f(&e);
            s.pos = it.position();
            match s.peek(file, &mut diags) {
                Some(ts) => {
                    let key = (ts, s.current_index(), s.pos);
                    if bound.is_some_and(|b| key > b) {
                        heap.push(Reverse((ts, key.1, key.2, i)));
                        break;
                    }
                }
                None => break,
            }
        }
    }
    diags
}

impl Stream<'_> {
    fn current_index(&self) -> u32 {
        self.current.as_ref().map_or(u32::MAX, |c| c.0)
    }
}
