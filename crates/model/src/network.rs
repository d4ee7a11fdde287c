//! Network: one row per kernel TcpIp/UdpIp (or Kernel-Network) event, attributed to the
//! process its payload names.

use crate::strings::StrId;
pub use etl::decode::NetOp;

/// WPA's names of the kernel network operations.
pub fn op_name(op: NetOp) -> &'static str {
    match op {
        NetOp::Send => "Send",
        NetOp::Recv => "Receive",
        NetOp::Connect => "Connect",
        NetOp::Disconnect => "Disconnect",
        NetOp::Retransmit => "Retransmit",
        NetOp::Accept => "Accept",
        NetOp::Reconnect => "Reconnect",
        NetOp::Fail => "Fail",
        NetOp::Copy => "Copy",
    }
}

/// Data moving one way or the other; connection events have none.
pub fn direction(op: NetOp) -> &'static str {
    match op {
        NetOp::Send | NetOp::Retransmit => "Send",
        NetOp::Recv | NetOp::Copy => "Receive",
        _ => "",
    }
}

#[derive(Debug, Clone, Default)]
pub struct NetworkTable {
    /// ns since trace start, sorted.
    pub time: Vec<i64>,
    /// Process row of the payload's PID (`NONE` for Fail or an unknown PID).
    pub process: Vec<u32>,
    /// The payload's PID (`u32::MAX` for Fail, which has none).
    pub pid: Vec<u32>,
    pub udp: Vec<bool>,
    pub ipv6: Vec<bool>,
    pub op: Vec<NetOp>,
    pub size: Vec<u32>,
    /// Addresses as text, interned: a trace talks to few endpoints.
    pub local_address: Vec<StrId>,
    pub local_port: Vec<u16>,
    pub remote_address: Vec<StrId>,
    pub remote_port: Vec<u16>,
}

impl NetworkTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
