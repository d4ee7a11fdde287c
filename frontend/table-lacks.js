// What a table with no rows in the whole trace says: which events the recording lacked and the
// kernel flag or provider that records them (WPR/xperf names), instead of "no data in this range".

/** @type {Record<string, string>} */
const LACKS = {
  'cpu-sampled': 'This trace has no CPU samples (SampledProfile events): record with the PROFILE kernel flag (WPR\'s CPU profile, xperf -on PROFILE), with stack walking for stacks.',
  'cpu-precise': 'This trace has no context switch events: record with CSWITCH (and READYTHREAD for the readying thread), e.g. xperf -on PROC_THREAD+LOADER+CSWITCH+DISPATCHER -stackwalk CSwitch+ReadyThread.',
  processes: 'This trace has no process events: record with PROC_THREAD (a kernel session\'s rundown lists the processes alive at its start and end).',
  threads: 'This trace has no thread events: record with PROC_THREAD.',
  images: 'This trace has no image load events: record with LOADER (a kernel session\'s rundown lists the images loaded at its start and end).',
  'file-io': 'This trace has no File I/O events: record with FILE_IO and FILE_IO_INIT (or the Microsoft-Windows-Kernel-File provider).',
  'disk-io': 'This trace has no disk I/O events: record with DISK_IO (and DISK_IO_INIT for the initiating thread).',
  'hard-faults': 'This trace has no hard fault events: record with HARD_FAULTS (xperf -on PROC_THREAD+LOADER+HARD_FAULTS+FILENAME, WPR\'s disk and file I/O profiles), with stack walking (HardFault) for stacks.',
  network: 'This trace has no kernel TCP/UDP events: record with NETWORKTRACE (xperf -on PROC_THREAD+LOADER+NETWORKTRACE, WPR\'s networking profile).',
  'page-faults': 'This trace has no soft page fault events: record with ALL_FAULTS (xperf -on PROC_THREAD+LOADER+ALL_FAULTS, WPR\'s memory profiles), with stack walking (PageFault*) for stacks.',
  registry: 'This trace has no registry events: record with REGISTRY (xperf -on PROC_THREAD+LOADER+REGISTRY, WPR\'s registry I/O activity).',
  'virtual-alloc': 'This trace has no VirtualAlloc/VirtualFree events: record with VIRT_ALLOC (xperf -on PROC_THREAD+LOADER+VIRT_ALLOC -stackwalk VirtualAlloc+VirtualFree, WPR\'s VirtualAlloc profile).',
  regions: 'No region of interest matched this trace\'s events: choose or import a regions file with the view\'s Regions control (or etlscope --regions FILE; the InstrumentationManifest Regions format WPA reads).',
  marks: 'This trace has no marks: run xperf -m LABEL or wpr -marker LABEL while recording.',
  heap: 'This trace has no heap events: trace a process\'s heap (xperf -start HeapSession -heap -PidNewProcess ... -stackwalk HeapAlloc+HeapRealloc, WPR\'s heap profile).',
  'processor-frequency': 'This trace has no processor frequency changes: record Microsoft-Windows-Kernel-Processor-Power (xperf -on PROC_THREAD+LOADER+POWER -start power -on Microsoft-Windows-Kernel-Processor-Power, WPR\'s Power profile).',
  'cpu-idle-states': 'This trace has no context switches, whose C-state tells the idle periods: record with CSWITCH (xperf -on PROC_THREAD+LOADER+CSWITCH+IDLE_STATES, WPR\'s CPU profile).',
  'window-in-focus': 'This trace has no focus changes: record Microsoft-Windows-Win32k with its Focus keyword (WPR\'s general profile; xperf -on PROC_THREAD+LOADER -start user -on Microsoft-Windows-Win32k).',
  'gpu-utilization': 'This trace has no GPU work: record Microsoft-Windows-DxgKrnl with its Base keyword and its rundown (WPR\'s GPU profile; xperf -start gpu -on Microsoft-Windows-DxgKrnl:0x1:5 then -capturestate gpu Microsoft-Windows-DxgKrnl:0x840, as GPUView\'s log.cmd does).',
  'frame-times': 'This trace has no presents: record Microsoft-Windows-DxgKrnl with its Base keyword (WPR\'s GPU profile).',
  'ui-delays': 'This trace has no UI delays: record Microsoft-Windows-Win32k with its UIUnresponsiveness keyword (WPR\'s general profile; xperf -start user -on Microsoft-Windows-Win32k).',
  'dpc-isr': 'This trace has no DPC or ISR events: record with DPC and INTERRUPT (xperf -on PROC_THREAD+LOADER+DPC+INTERRUPT, WPR\'s CPU profile), with stack walking (DPC, ISR) for stacks.',
  generic: 'This trace has no events of other providers: enable user-mode providers when recording (WPR profiles, xperf -start NAME -on PROVIDER).',
};

/**
 * The text of a table with no rows: what the trace lacks when it has none of the table's events at
 * all (per the summary's `table_rows`), else null (the range or the filters left nothing).
 * @param {any} summary @param {string} table @returns {string|null}
 */
export function lackText(summary, table) {
  const rows = summary && summary.table_rows;
  if (!rows || typeof rows[table] !== 'number' || rows[table] > 0) return null;
  return LACKS[table] || 'This trace has no events for this table.';
}
