//! Kernel TcpIp (group 0x06) and UdpIp (group 0x08) events.
//!
//! Sources: Microsoft's MSNT_SystemTrace classes `TcpIp_SendIPV4`,
//! `TcpIp_TypeGroup1`, `TcpIp_TypeGroup2`, `TcpIp_SendIPV6`,
//! `TcpIp_V6_TypeGroup1/2`, `UdpIp_TypeGroup1`, `UdpIp_V6_TypeGroup1`,
//! `TcpIp_Fail`, `UdpIp_Fail` (learn.microsoft.com/windows/win32/etw/tcpip,
//! .../udpip), and TraceEvent's KernelTraceEventParser (`TcpIpTraceData`,
//! `TcpIpSendTraceData`, `TcpIpConnectTraceData`, `TcpIpV6TraceData`,
//! `UdpIpTraceData`, `UdpIpV6TraceData`, `TcpIpFailTraceData`). Every
//! layout but Fail begins u32 PID, u32 size, daddr (4 or 16 bytes), saddr,
//! u16 dport, u16 sport (ports in network byte order); what follows differs
//! per opcode: Send has u32 startime, u32 endtime; Connect and Accept
//! (TcpIp_TypeGroup2) u16 mss, sackopt, tsopt, wsopt, u32 rcvwin, s16
//! rcvwinscale, sndwinscale; then every one ends u32 seqnum, pointer connid.
//! That tail is read when the payload holds exactly it (other versions keep
//! their bytes unread rather than fail).
//! Opcodes: 10 Send, 11 Recv, 12 Connect, 13 Disconnect, 14 Retransmit,
//! 15 Accept, 16 Reconnect, 17 Fail, 18 TCPCopy; IPv6 adds 16. Verified on
//! the x64 trace: 0x061A 64 bytes, 0x061B 56, 0x080A/B 32, 0x081A/B 56.
//! The PID is the process the connection belongs to; the header's (a
//! perfinfo header has none) is the DPC's at best.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NetOp {
    Send,
    Recv,
    Connect,
    Disconnect,
    Retransmit,
    Accept,
    Reconnect,
    Fail,
    Copy,
}

impl NetOp {
    /// The operation of an opcode (IPv6 opcodes less 16).
    pub fn of(opcode: u8) -> Option<NetOp> {
        Some(match opcode {
            10 => NetOp::Send,
            11 => NetOp::Recv,
            12 => NetOp::Connect,
            13 => NetOp::Disconnect,
            14 => NetOp::Retransmit,
            15 => NetOp::Accept,
            16 => NetOp::Reconnect,
            17 => NetOp::Fail,
            18 => NetOp::Copy,
            _ => return None,
        })
    }
}

/// One TcpIp or UdpIp event. Fail carries no PID, addresses or size
/// (u16 Proto, u16 FailureCode): those read as 0 / `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetEvent {
    pub udp: bool,
    pub ipv6: bool,
    pub op: NetOp,
    pub pid: Option<u32>,
    pub size: u32,
    /// Addresses as on the wire: IPv4 in the first 4 bytes.
    pub daddr: [u8; 16],
    pub saddr: [u8; 16],
    pub dport: u16,
    pub sport: u16,
    /// Fail's FailureCode.
    pub failure_code: u16,
    /// The tail's seqnum and connid (the connection's kernel object), when read.
    pub seqnum: Option<u32>,
    pub connid: Option<u64>,
}

/// Microsoft-Windows-Kernel-Network.
pub const KERNEL_NETWORK: crate::Guid =
    crate::Guid::from_u128(0x7dd42a49_5329_4832_8dfd_43d979153a88);

/// The classic hook id of a Microsoft-Windows-Kernel-Network event id. Its
/// manifest (Windows 10 10240/17134/18990, github.com/repnz/etw-providers-docs,
/// our built-in pack) numbers TCP events as the kernel TcpIp opcodes (10-18
/// IPv4, 26-34 IPv6) and UDP ones 32 above UdpIp's (42, 43, 49 IPv4; 58, 59
/// IPv6), and its templates begin as the classic layouts: PID, size, daddr,
/// saddr, dport, sport (TCP/UDP failures: Proto, FailureCode).
pub fn kernel_network_hook(event_id: u16) -> Option<u16> {
    let (group, opcode) = match event_id {
        10..=34 => (0x06u16, event_id),
        42..=66 => (0x08, event_id - 32),
        _ => return None,
    };
    let hook = (group << 8) | opcode;
    is_net_hook(hook).then_some(hook)
}

/// Whether a kernel hook id is a TcpIp/UdpIp event this module decodes
/// (UDP has only Send, Recv and Fail).
pub fn is_net_hook(hook: u16) -> bool {
    let (group, opcode) = ((hook >> 8) as u8, hook as u8);
    let op = match opcode {
        10..=18 => opcode,
        26..=34 if opcode != 33 => opcode - 16,
        _ => return false,
    };
    match group {
        0x06 => true,
        0x08 => matches!(op, 10 | 11 | 17),
        _ => false,
    }
}

impl<'a> Decode<'a> for NetEvent {
    const NAME: &'static str = "TcpIp";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<NetEvent> {
        let hook = ev.hook_id.unwrap_or(0);
        let (group, opcode) = ((hook >> 8) as u8, hook as u8);
        if !is_net_hook(hook) {
            return Err(r.malformed("not a TcpIp/UdpIp hook id"));
        }
        let ipv6 = opcode >= 26;
        let op = NetOp::of(if ipv6 { opcode - 16 } else { opcode })
            .ok_or_else(|| r.malformed("not a TcpIp/UdpIp opcode"))?;
        let mut n = NetEvent {
            udp: group == 0x08,
            ipv6,
            op,
            pid: None,
            size: 0,
            daddr: [0; 16],
            saddr: [0; 16],
            dport: 0,
            sport: 0,
            failure_code: 0,
            seqnum: None,
            connid: None,
        };
        if op == NetOp::Fail {
            let _proto = r.u16()?;
            n.failure_code = r.u16()?;
            return Ok(n);
        }
        n.pid = Some(r.u32()?);
        n.size = r.u32()?;
        let len = if ipv6 { 16 } else { 4 };
        n.daddr[..len].copy_from_slice(r.bytes(len)?);
        n.saddr[..len].copy_from_slice(r.bytes(len)?);
        n.dport = u16::from_be_bytes(r.bytes(2)?.try_into().unwrap_or_default());
        n.sport = u16::from_be_bytes(r.bytes(2)?.try_into().unwrap_or_default());
        // Kernel-Network's templates end otherwise (its manifest): only the
        // classic layouts' tail is read.
        if ev.provider != Some(KERNEL_NETWORK) {
            let before = match op {
                NetOp::Send if !n.udp => 8,
                NetOp::Connect | NetOp::Accept => 16,
                _ => 0,
            };
            let ptr = usize::from(r.pointer_size());
            if r.remaining() == before + 4 + ptr {
                r.bytes(before)?;
                n.seqnum = Some(r.u32()?);
                n.connid = Some(r.ptr()?);
            }
        }
        Ok(n)
    }
}

impl NetEvent {
    /// (local address, local port, remote address, remote port). TCP
    /// events name the connection (saddr is always the local end: the x64
    /// trace's receives carry their sends' tuple); a UDP receive names the
    /// datagram, whose destination is the local end (its receives go to
    /// 239.255.255.250:1900 from hosts that are not the sender of its
    /// sends).
    pub fn endpoints(&self) -> ([u8; 16], u16, [u8; 16], u16) {
        if self.udp && self.op == NetOp::Recv {
            (self.daddr, self.dport, self.saddr, self.sport)
        } else {
            (self.saddr, self.sport, self.daddr, self.dport)
        }
    }

    /// An address as text: dotted IPv4 or RFC 5952 IPv6.
    pub fn address_text(&self, a: &[u8; 16]) -> String {
        if self.ipv6 {
            std::net::Ipv6Addr::from(*a).to_string()
        } else {
            std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn kernel_network_ids_map_to_the_classic_hooks() {
        let m = |id| kernel_network_hook(id);
        assert_eq!(m(10), Some(0x060A));
        assert_eq!(m(18), Some(0x0612));
        assert_eq!(m(26), Some(0x061A));
        assert_eq!(m(34), Some(0x0622));
        assert_eq!(m(33), None);
        assert_eq!(
            (m(42), m(43), m(49)),
            (Some(0x080A), Some(0x080B), Some(0x0811))
        );
        assert_eq!((m(58), m(59)), (Some(0x081A), Some(0x081B)));
        // UDP has no connect; other ids are not network data.
        assert_eq!((m(44), m(9), m(1)), (None, None, None));
    }

    #[test]
    fn udp_v4_receive_and_tcp_v6_send() {
        // The x64 trace's first UdpIp RecvIPV4 (0x080B).
        let b: Vec<u8> = [
            0x3c, 0x08, 0, 0, 0xad, 0, 0, 0, 0xef, 0xff, 0xff, 0xfa, 0x0a, 0x80, 0, 0x75, 0x07,
            0x6c, 0xec, 0x19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ]
        .to_vec();
        let n = NetEvent::decode(&kernel_event(0x080B, 2, 8, &b)).unwrap();
        assert!(n.udp && !n.ipv6);
        assert_eq!((n.op, n.pid, n.size), (NetOp::Recv, Some(0x83c), 0xad));
        let (l, lp, r, rp) = n.endpoints();
        assert_eq!((n.address_text(&l), lp), ("239.255.255.250".into(), 1900));
        assert_eq!((n.address_text(&r), rp), ("10.128.0.117".into(), 0xec19));
        // Its tail, u32 seqnum and a 64-bit connid, is all zero.
        assert_eq!((n.seqnum, n.connid), (Some(0), Some(0)));

        let mut b = 4u32.to_le_bytes().to_vec();
        b.extend(1460u32.to_le_bytes());
        b.extend(
            [0x20, 0x01, 0x0d, 0xb8]
                .iter()
                .chain(&[0u8; 11])
                .chain(&[1]),
        );
        b.extend([0xfe, 0x80].iter().chain(&[0u8; 13]).chain(&[2]));
        b.extend(445u16.to_be_bytes());
        b.extend(50000u16.to_be_bytes());
        // TcpIp_SendIPV6's tail: startime, endtime, seqnum, connid.
        for v in [1u32, 2, 0x1234] {
            b.extend(v.to_le_bytes());
        }
        b.extend(0xffff_a000_0000_1000u64.to_le_bytes());
        let n = NetEvent::decode(&kernel_event(0x061A, 2, 8, &b)).unwrap();
        assert_eq!(
            (n.seqnum, n.connid),
            (Some(0x1234), Some(0xffff_a000_0000_1000))
        );
        assert!(!n.udp && n.ipv6);
        assert_eq!((n.op, n.pid, n.size), (NetOp::Send, Some(4), 1460));
        let (l, lp, r, rp) = n.endpoints();
        assert_eq!((n.address_text(&l), lp), ("fe80::2".into(), 50000));
        assert_eq!((n.address_text(&r), rp), ("2001:db8::1".into(), 445));
    }

    #[test]
    fn hooks_and_failures() {
        assert!(is_net_hook(0x060A) && is_net_hook(0x0622) && is_net_hook(0x081B));
        assert!(!is_net_hook(0x0621) && !is_net_hook(0x080C) && !is_net_hook(0x0609));
        let b = [6u8, 0, 0x34, 0x12];
        let n = NetEvent::decode(&kernel_event(0x0611, 2, 8, &b)).unwrap();
        assert_eq!((n.op, n.pid, n.failure_code), (NetOp::Fail, None, 0x1234));
        assert!(NetEvent::decode(&kernel_event(0x060A, 2, 8, &[1, 2, 3])).is_err());
    }
}
