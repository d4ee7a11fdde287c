//! Our table of classic kernel events no typed decoder takes, in the line
//! format of [`super::table`]: `K hook version Group Opcode fields`. Layouts
//! of the kernel's MOF classes as PerfView's KernelTraceEventParser reads
//! them (TcpIp_TypeGroup1/2/4, TcpIp_SendIPV4/6, UdpIp_TypeGroup1/2); the
//! real-trace test checks each accounts for the whole payload.

pub const TABLE: &str = r"
# TcpIp (group 0x06), version 2: IPv4
K 0x060A 2 TcpIp Send PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port startime:u32 endtime:u32 seqnum:u32 connid:ptr
K 0x060B 2 TcpIp Recv PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x060D 2 TcpIp Disconnect PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x060E 2 TcpIp Retransmit PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x0610 2 TcpIp Reconnect PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x0612 2 TcpIp TCPCopy PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
# TcpIp, version 2: IPv6
K 0x061A 2 TcpIp SendIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port startime:u32 endtime:u32 seqnum:u32 connid:ptr
K 0x061B 2 TcpIp RecvIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x061D 2 TcpIp DisconnectIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x061E 2 TcpIp RetransmitIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x0620 2 TcpIp ReconnectIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x0622 2 TcpIp TCPCopyIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
# SystemConfig (group 0x0B) rundown, version 2: fields as PerfView's
# baseline lists them (SystemConfig/Network: TcbTablePartitions=32;
# MaxHashTableSize=-1; MaxUserPort=65,536; TcpTimedWaitDelay=120).
K 0x0B11 2 SystemConfig Network TcbTablePartitions:u32 MaxHashTableSize:i32 MaxUserPort:u32 TcpTimedWaitDelay:u32
K 0x0B1C 2 SystemConfig DPI MachineDPI:u32 UserDPI:u32
# UdpIp (group 0x08), version 2
K 0x080A 2 UdpIp Send PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x080B 2 UdpIp Recv PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x081A 2 UdpIp SendIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x081B 2 UdpIp RecvIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
";

/// Names of kernel events that have no schema line (yet): `Group/Opcode`
/// as PerfView names them, so the Event Name column says what they are
/// while their payload stays hex (and counted).
pub const NAMES: &[(u16, &str)] = &[
    (0x0000, "EventTrace/Header"),
    (0x0005, "EventTrace/Extension"),
    (0x0008, "EventTrace/RDComplete"),
    (0x0020, "EventTrace/EndExtension"),
    (0x0320, "Process/PerfCtr"),
    (0x0321, "Process/PerfCtrRundown"),
    (0x0B0B, "SystemConfig/PhyDisk"),
    (0x0B0D, "SystemConfig/NIC"),
    (0x0B0E, "SystemConfig/Video"),
    (0x0B0F, "SystemConfig/Services"),
    (0x0B10, "SystemConfig/Power"),
    (0x0B15, "SystemConfig/IRQ"),
    (0x0B16, "SystemConfig/PnP"),
    (0x0B17, "SystemConfig/IDEChannel"),
    (0x0B19, "SystemConfig/Platform"),
];
