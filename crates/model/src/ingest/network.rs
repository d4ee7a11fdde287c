//! The Network table from the sorted TcpIp/UdpIp records.

use super::records::NetRec;
use super::Joiner;
use crate::images::NONE;
use crate::network::NetworkTable;

pub fn build_network(recs: &[NetRec], j: &mut Joiner<'_, '_>) -> NetworkTable {
    let mut n = NetworkTable::default();
    for r in recs {
        let time = j.clock.to_ns(r.ts);
        // The payload's PID: a perfinfo header names no process, and the
        // thread that logged a receive is whoever ran the DPC.
        let process = r.n.pid.map_or(NONE, |pid| j.process_at(pid, time));
        let (local, local_port, remote, remote_port) = r.n.endpoints();
        let strings = &mut j.t.strings;
        let text = |a: &[u8; 16]| r.n.address_text(a);
        let (local, remote) = if r.n.op == etl::decode::NetOp::Fail {
            (Default::default(), Default::default())
        } else {
            (
                strings.intern(&text(&local)),
                strings.intern(&text(&remote)),
            )
        };
        n.time.push(time);
        n.process.push(process);
        n.pid.push(r.n.pid.unwrap_or(u32::MAX));
        n.udp.push(r.n.udp);
        n.ipv6.push(r.n.ipv6);
        n.op.push(r.n.op);
        n.size.push(r.n.size);
        n.local_address.push(local);
        n.local_port.push(local_port);
        n.remote_address.push(remote);
        n.remote_port.push(remote_port);
    }
    n
}
