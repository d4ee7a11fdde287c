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
# Platform: four strings (manufacturer, product, BIOS date and version; on
# both real traces: Microsoft Corporation, Virtual Machine, 12/07/2018, 090008).
K 0x0B19 2 SystemConfig Platform SystemManufacturer:str SystemProductName:str BiosDate:str BiosVersion:str
# SystemConfig IRQ, version 3 (Windows 10): PerfView's version-2 layout
# (IRQAffinity, IRQNum, DeviceDescriptionLen, DeviceDescription) with a
# processor group and a reserved u16 after the affinity; checked by hand on
# vs-dotnetcore31's payloads (IRQNum 10, 61-character description).
K 0x0B15 3 SystemConfig IRQ IRQAffinity:x64 IRQGroup:u16 Reserved:u16 IRQNum:u32 DeviceDescriptionLen:u32 DeviceDescription:str
K 0x0B17 2 SystemConfig IDEChannel TargetID:u32 DeviceType:u32 DeviceTimingMode:u32 LocationInformationLen:u32 LocationInformation:str
# EventTrace (group 0x00): the header event is the TRACE_LOGFILE_HEADER
# (its two name pointers are the logger's; the TIME_ZONE_INFORMATION takes
# 172 bytes, padded to 176 so BootTime is 8-aligned with either pointer
# size); Extension and EndExtension are PerfView's HeaderExtensionTraceData.
K 0x0000 2 EventTrace Header BufferSize:u32 Version:x32 ProviderVersion:u32 NumberOfProcessors:u32 EndTime:time TimerResolution:u32 MaxFileSize:u32 LogFileMode:x32 BuffersWritten:u32 StartBuffers:u32 PointerSize:u32 EventsLost:u32 CPUSpeed:u32 LoggerName:ptr LogFileNamePointer:ptr TimeZone:bin[176] BootTime:time PerfFreq:u64 StartTime:time ReservedFlags:u32 BuffersLost:u32 SessionName:str LogFileName:str
K 0x0005 2 EventTrace Extension GroupMask1:x32 GroupMask2:x32 GroupMask3:x32 GroupMask4:x32 GroupMask5:x32 GroupMask6:x32 GroupMask7:x32 GroupMask8:x32 KernelEventVersion:u32
K 0x0020 2 EventTrace EndExtension GroupMask1:x32 GroupMask2:x32 GroupMask3:x32 GroupMask4:x32 GroupMask5:x32 GroupMask6:x32 GroupMask7:x32 GroupMask8:x32 KernelEventVersion:u32
# Process Terminate (ntwmi.h WMI_LOG_TYPE_PROCESS_TERMINATE, group 0x03 |
# EVENT_TRACE_TYPE_TERMINATE): Windows 10 logs only the process id, just
# before that process's Stop (vs-dotnetcore31: pid 2140 at 11.0039 s, its
# Process/Stop at 11.0046 s).
K 0x030B 2 Process Terminate ProcessID:u32
# Process counters (PerfView's ProcessCtrTraceData)
K 0x0320 2 Process PerfCtr ProcessID:u32 PageFaultCount:u32 HandleCount:u32 Reserved:u32 PeakVirtualSize:ptr PeakWorkingSetSize:ptr PeakPagefileUsage:ptr QuotaPeakPagedPoolUsage:ptr QuotaPeakNonPagedPoolUsage:ptr VirtualSize:ptr WorkingSetSize:ptr PagefileUsage:ptr QuotaPagedPoolUsage:ptr QuotaNonPagedPoolUsage:ptr PrivatePageCount:ptr
K 0x0321 2 Process PerfCtrRundown ProcessID:u32 PageFaultCount:u32 HandleCount:u32 Reserved:u32 PeakVirtualSize:ptr PeakWorkingSetSize:ptr PeakPagefileUsage:ptr QuotaPeakPagedPoolUsage:ptr QuotaPeakNonPagedPoolUsage:ptr VirtualSize:ptr WorkingSetSize:ptr PagefileUsage:ptr QuotaPagedPoolUsage:ptr QuotaNonPagedPoolUsage:ptr PrivatePageCount:ptr
# Microsoft-Windows-Kernel-Process (manifest provider 22fb2cd6), events 7-10
# of Windows 7's manifest: a thread's base CPU, CPU, page and I/O priority
# changed (ProcessID, ThreadID, OldPriority, NewPriority: 10 bytes).
KP 7 0 CpuBasePriorityChange win:Info ProcessID:u32 ThreadID:u32 OldPriority:u8 NewPriority:u8
KP 8 0 CpuPriorityChange win:Info ProcessID:u32 ThreadID:u32 OldPriority:u8 NewPriority:u8
KP 9 0 PagePriorityChange win:Info ProcessID:u32 ThreadID:u32 OldPriority:u8 NewPriority:u8
KP 10 0 IoPriorityChange win:Info ProcessID:u32 ThreadID:u32 OldPriority:u8 NewPriority:u8
# KernelTraceControl image events no typed decoder takes (PerfView's
# SymbolTraceEventParser): opcode 32 (DBGID_LOG_TYPE_NONE, an image with no
# debug record) and 40 (DbgDeterm, a deterministic build), both the image
# base and its process.
T 32 2 ImageID None ImageBase:ptr ProcessID:u32
T 40 1 ImageID DbgDeterm ImageBase:ptr ProcessID:u32
# SysConfig rundown (classic, 9b79ee91): PerfView's BuildInfoTraceData and
# UnknownVolume (a volume without a DOS name).
S 32 0 SysConfig BuildInfo InstallDate:time BuildLab:str ProductName:str
S 34 0 SysConfig UnknownVolume Value:str
# UdpIp (group 0x08), version 2
K 0x080A 2 UdpIp Send PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x080B 2 UdpIp Recv PID:u32 size:u32 daddr:ip4 saddr:ip4 dport:port sport:port seqnum:u32 connid:ptr
K 0x081A 2 UdpIp SendIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
K 0x081B 2 UdpIp RecvIPV6 PID:u32 size:u32 daddr:ip6[16] saddr:ip6[16] dport:port sport:port seqnum:u32 connid:ptr
";

/// Names of kernel events of a version without a schema line: `Group/Opcode`
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
    // Windows 10 rundown kinds, named by the SDK's evntrace.h
    // (EVENT_TRACE_TYPE_CONFIG_*); no public parser gives their layouts.
    (0x0B12, "SystemConfig/OpticalMedia"),
    (0x0B1D, "SystemConfig/CodeIntegrity"),
    (0x0B1E, "SystemConfig/MachineId"),
    (0x0B21, "SystemConfig/DeviceFamily"),
    (0x0B22, "SystemConfig/FlightIds"),
    (0x0B23, "SystemConfig/Processor"),
    (0x0B24, "SystemConfig/Virtualization"),
    (0x0B25, "SystemConfig/Boot"),
];
