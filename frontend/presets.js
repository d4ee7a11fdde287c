// Presets like WPA's: each is a partial view state.

/** @type {{name: string, state: Partial<import('./url-state.js').ViewState>}[]} */
export const PRESETS = [
  { name: 'Utilization by Process, Stack', state: { view: 'table', table: 'cpu-sampled', groups: ['Process', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Utilization by Process, Thread, Stack', state: { view: 'table', table: 'cpu-sampled', groups: ['Process', 'Thread ID', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Utilization by Module, Function', state: { view: 'table', table: 'cpu-sampled', groups: ['Module', 'Function'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Flame by Process, Stack', state: { view: 'flame', table: 'cpu-sampled', groups: ['Process', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true, perProcess: true } },
  { name: 'Lifetime by Process, Image', state: { view: 'table', table: 'images', groups: ['Process', 'Image Name'], cols: ['Load Time', 'Unload Time', 'Image Size', 'File Version', 'Image Path'], sort: 'File Version', desc: false } },
  { name: 'Images by File Version, Path', state: { view: 'table', table: 'images', groups: ['File Version', 'Image Path'], cols: ['Count'], sort: 'File Version', desc: false } },
  { name: 'Processes', state: { view: 'table', table: 'processes', groups: ['Process'], cols: ['Start Time', 'End Time', 'Duration', 'Exit Code', 'Command Line'], sort: 'Start Time', desc: false } },
  { name: 'File I/O by Type, Path', state: { view: 'table', table: 'file-io', groups: ['Type', 'File Path'], cols: ['Count', 'Size', 'Duration (ms)', '% Weight'], sort: 'Count', desc: true } },
  { name: 'File I/O by Path, Stack', state: { view: 'table', table: 'file-io', groups: ['File Path', 'Stack'], cols: ['Count', 'Size', 'Duration (ms)'], sort: 'Count', desc: true } },
  { name: 'Disk I/O by Path', state: { view: 'table', table: 'disk-io', groups: ['IO Type', 'Path Name'], cols: ['Count', 'Size', 'Disk Service Time (ms)', '% Weight'], sort: 'Count', desc: true } },
  { name: 'Hard Faults by Process, File', state: { view: 'table', table: 'hard-faults', groups: ['Process', 'File Path'], cols: ['Count', 'Size', 'I/O Time (ms)', '% Weight'], sort: 'Count', desc: true } },
  { name: 'Hard Faults by Type, File, Stack', state: { view: 'table', table: 'hard-faults', groups: ['Type', 'File Path', 'Stack'], cols: ['Count', 'Size', 'I/O Time (ms)'], sort: 'I/O Time (ms)', desc: true } },
  { name: 'Network by Process, Remote Endpoint', state: { view: 'table', table: 'network', groups: ['Process', 'Remote Address', 'Remote Port'], cols: ['Count', 'Size', '% Weight'], sort: 'Size', desc: true } },
  { name: 'Network by Protocol, Event', state: { view: 'table', table: 'network', groups: ['Protocol', 'Event', 'Process'], cols: ['Count', 'Size'], sort: 'Count', desc: true } },
  { name: 'Page Faults by Type, Process, Stack', state: { view: 'table', table: 'page-faults', groups: ['Type', 'Process', 'Stack'], cols: ['Count', '% Weight'], sort: 'Count', desc: true } },
  { name: 'Registry by Key Path, Value', state: { view: 'table', table: 'registry', groups: ['Key Path', 'Value Name', 'Operation'], cols: ['Count', 'Duration (ms)', '% Weight'], sort: 'Count', desc: true } },
  { name: 'Commit by Process, Commit Stack', state: { view: 'table', table: 'virtual-alloc', groups: ['Process', 'Commit Stack'], cols: ['Count', 'Size', 'Impacting Size'], sort: 'Impacting Size', desc: true } },
  { name: 'Heap Outstanding by Process, Stack', state: { view: 'table', table: 'heap', groups: ['Process', 'Type', 'Stack'], cols: ['Count', 'Size', 'Impacting Size'], sort: 'Impacting Size', desc: true } },
  { name: 'DPC/ISR Duration by Module, Function', state: { view: 'table', table: 'dpc-isr', groups: ['Module', 'Function'], cols: ['Count', 'Exclusive Duration', 'Inclusive Duration', 'Inclusive Duration:max', '% Weight'], sort: 'Exclusive Duration', desc: true } },
  { name: 'DPC/ISR Duration by CPU, Type', state: { view: 'table', table: 'dpc-isr', groups: ['CPU', 'Type', 'Module'], cols: ['Count', 'Exclusive Duration', 'Inclusive Duration', '% Weight'], sort: 'Exclusive Duration', desc: true } },
  { name: 'CPU Usage (Precise) by Process, Thread, Stack', state: { view: 'table', table: 'cpu-precise', groups: ['New Process', 'New Thread Id', 'New Thread Stack'], cols: ['Count', 'CPU Usage (ms)', 'Waits (ms)', 'Ready (ms)', '% Weight'], sort: 'CPU Usage (ms)', desc: true } },
  { name: 'Generic Events by Provider', state: { view: 'table', table: 'generic', groups: ['Provider', 'Event Name', 'Process', 'Fields'], cols: ['Count', 'First (s)', 'Last (s)'], sort: 'Count', desc: true } },
  { name: 'Threads by Process', state: { view: 'table', table: 'threads', groups: ['Process', 'Thread ID', 'Thread Name'], cols: ['Count'], sort: 'Count', desc: true } },
];
