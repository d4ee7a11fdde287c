//! File I/O: kernel FileIo and Microsoft-Windows-Kernel-File events into
//! operations, with file object -> path resolution from name, create and
//! rundown events, and completion times from OperationEnd.

use super::paths::PathMapper;
use super::records::{Batch, FileNameRec, FileOpEndRec, FileOpRec};
use crate::io::FileOp;
use crate::strings::{StrId, StringTable};
use etl::decode::{self, Decoded, FileInfoKind, FilePathOpKind, FileSimpleOpKind};
use etl::Event;
use rustc_hash::FxHashMap;

/// Record one decoded FileIo / Kernel-File event.
pub fn collect_file_event(e: &Event<'_>, d: Decoded<'_>, b: &mut Batch, frames: &mut Vec<u64>) {
    let ts = e.timestamp;
    let kernel_file_provider = e.provider == Some(decode::KERNEL_FILE);
    let ext_stack = match decode::event_stack(e) {
        Some(Ok(s)) => {
            frames.clear();
            frames.extend(s.frames.iter());
            Some(b.fragments.intern(frames))
        }
        _ => None,
    };
    let op = |op: FileOp, ttid: u32, irp: u64, file_object: u64, file_key: u64| FileOpRec {
        ts,
        op,
        // TTID is the issuing thread; 0 when the payload did not say.
        tid: if ttid != 0 {
            ttid
        } else {
            e.tid.unwrap_or(u32::MAX)
        },
        header_tid: e.tid,
        pid: e.pid,
        irp,
        file_object,
        file_key,
        size: 0,
        offset: 0,
        path: None,
        ext_stack,
        kernel_file_provider,
    };
    match d {
        Decoded::FileIoName(n) => b.file_names.push(FileNameRec {
            ts,
            key: n.file_key,
            path: n.file_name,
        }),
        Decoded::FileIoCreate(c) => {
            let mut r = op(FileOp::Create, c.ttid, c.irp, c.file_object, 0);
            b.file_names.push(FileNameRec {
                ts,
                key: c.file_object,
                path: c.open_path.clone(),
            });
            r.path = Some(c.open_path);
            b.file_ops.push(r);
        }
        Decoded::FileIoSimpleOp(s) => {
            let kind = match s.kind {
                FileSimpleOpKind::Cleanup => FileOp::Cleanup,
                FileSimpleOpKind::Close => FileOp::Close,
                FileSimpleOpKind::Flush => FileOp::Flush,
            };
            b.file_ops
                .push(op(kind, s.ttid, s.irp, s.file_object, s.file_key));
        }
        Decoded::FileIoReadWrite(rw) => {
            let kind = if rw.write {
                FileOp::Write
            } else {
                FileOp::Read
            };
            let mut r = op(kind, rw.ttid, rw.irp, rw.file_object, rw.file_key);
            r.size = u64::from(rw.io_size);
            r.offset = rw.offset;
            b.file_ops.push(r);
        }
        Decoded::FileIoInfo(i) => {
            let kind = match i.kind {
                FileInfoKind::SetInfo => FileOp::SetInfo,
                FileInfoKind::Delete => FileOp::Delete,
                FileInfoKind::Rename => FileOp::Rename,
                FileInfoKind::QueryInfo => FileOp::QueryInfo,
                FileInfoKind::FsControl => FileOp::FsControl,
            };
            b.file_ops
                .push(op(kind, i.ttid, i.irp, i.file_object, i.file_key));
        }
        Decoded::FileIoDirEnum(de) => {
            let kind = if de.notify {
                FileOp::DirNotify
            } else {
                FileOp::DirEnum
            };
            let mut r = op(kind, de.ttid, de.irp, de.file_object, de.file_key);
            r.size = u64::from(de.length);
            b.file_ops.push(r);
        }
        Decoded::FileIoPathOp(p) => {
            let (kind, path) = match p.kind {
                FilePathOpKind::DeletePath => (FileOp::Delete, Some(p.file_path)),
                // The path of a rename is the new name, not the file's.
                FilePathOpKind::RenamePath => (FileOp::Rename, None),
                FilePathOpKind::SetLinkPath => (FileOp::SetInfo, None),
            };
            let mut r = op(kind, p.ttid, p.irp, p.file_object, p.file_key);
            r.path = path;
            b.file_ops.push(r);
        }
        Decoded::FileIoOpEnd(o) => b.file_op_ends.push(FileOpEndRec {
            ts,
            irp: o.irp,
            extra_info: o.extra_info,
        }),
        _ => {}
    }
}

/// Names per file key / file object, in time order.
#[derive(Debug, Default)]
pub struct FileNames {
    by_key: FxHashMap<u64, Vec<(i64, StrId)>>,
}

impl FileNames {
    pub fn new(names: &[FileNameRec], mapper: &PathMapper, strings: &mut StringTable) -> Self {
        let mut by_key: FxHashMap<u64, Vec<(i64, StrId)>> = FxHashMap::default();
        for n in names {
            if n.key == 0 || n.path.is_empty() {
                continue;
            }
            let id = strings.intern(&mapper.map(&n.path));
            by_key.entry(n.key).or_default().push((n.ts, id));
        }
        FileNames { by_key }
    }

    /// The name of `key` at raw time `ts`: the latest one given at or before
    /// it, else the first one after (rundown names come at the end).
    pub fn lookup(&self, key: u64, ts: i64) -> Option<StrId> {
        let list = self.by_key.get(&key)?;
        let i = list.partition_point(|&(t, _)| t <= ts);
        match i {
            0 => list.first().map(|x| x.1),
            i => list.get(i - 1).map(|x| x.1),
        }
    }
}

/// Completion time (raw) of the operation with `irp` issued at `ts`.
pub struct OpEnds {
    by_irp: FxHashMap<u64, Vec<i64>>,
}

impl OpEnds {
    pub fn new(ends: &[FileOpEndRec]) -> Self {
        let mut by_irp: FxHashMap<u64, Vec<i64>> = FxHashMap::default();
        for e in ends {
            by_irp.entry(e.irp).or_default().push(e.ts);
        }
        OpEnds { by_irp }
    }

    pub fn end(&self, irp: u64, ts: i64) -> Option<i64> {
        let list = self.by_irp.get(&irp)?;
        let i = list.partition_point(|&t| t < ts);
        list.get(i).copied()
    }
}

/// The path of an operation: its own, else its file key's, else its file object's.
pub fn op_path(
    r: &FileOpRec,
    names: &FileNames,
    mapper: &PathMapper,
    strings: &mut StringTable,
) -> StrId {
    if let Some(p) = &r.path {
        return strings.intern(&mapper.map(p));
    }
    [r.file_key, r.file_object]
        .into_iter()
        .filter(|&k| k != 0)
        .find_map(|k| names.lookup(k, r.ts))
        .unwrap_or(StrId::EMPTY)
}
