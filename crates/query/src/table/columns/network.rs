//! Network: one row per kernel TcpIp/UdpIp or Microsoft-Windows-Kernel-Network
//! event, its process the one the payload names.

use super::{get, id, keyed, size, start_time, string, text, Numbers, PercentOf, TableDef};
use model::network::{direction, op_name};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let n = &t.network;
    TableDef {
        name: "network",
        rows: n.len(),
        columns: vec![
            start_time("Time", Numbers::I64(&n.time)).alias(&["Time (s)"]),
            keyed(
                "Process",
                move |i| get(&n.process, i),
                move |k| t.process_text(k),
            ),
            text("Protocol", move |i| {
                if get(&n.udp, i) { "UDP" } else { "TCP" }.to_string()
            }),
            text("IP Version", move |i| {
                if get(&n.ipv6, i) { "IPv6" } else { "IPv4" }.to_string()
            }),
            text("Event", move |i| {
                n.op.get(i).map_or("", |&o| op_name(o)).to_string()
            }),
            text("Direction", move |i| {
                n.op.get(i).map_or("", |&o| direction(o)).to_string()
            }),
            string(t, "Local Address", move |i| get(&n.local_address, i)),
            id("Local Port", move |i| i64::from(get(&n.local_port, i))),
            string(t, "Remote Address", move |i| get(&n.remote_address, i)),
            id("Remote Port", move |i| i64::from(get(&n.remote_port, i))),
            size("Size", Numbers::U32(&n.size)),
        ],
        start: Numbers::I64(&n.time),
        end: Numbers::I64(&n.time),
        timed: true,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size"],
        ui_weight: None,
        ui_sums: &[("Size", "Size", 1.0)],
    }
}
