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
# UdpIp (group 0x08), version 2
K 0x080A 2 UdpIp Send PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x080B 2 UdpIp Recv PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x081A 2 UdpIp SendIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x081B 2 UdpIp RecvIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
";
