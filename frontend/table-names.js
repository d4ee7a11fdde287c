// The tables by their API names, as WPA names them: tabs, the comparison page and presets say these.

/** @type {Record<string, string>} */
export const TABLE_NAMES = {
  'cpu-sampled': 'CPU Usage (Sampled)', 'cpu-precise': 'CPU Usage (Precise)', processes: 'Processes', threads: 'Threads', images: 'Images',
  'file-io': 'File I/O', 'disk-io': 'Disk I/O', generic: 'Generic Events', 'hard-faults': 'Hard Faults', network: 'Network',
  'page-faults': 'Page Faults', registry: 'Registry', 'virtual-alloc': 'VirtualAlloc Commit Lifetimes', heap: 'Heap Allocations',
  regions: 'Regions of Interest', marks: 'Marks',
  'dpc-isr': 'DPC/ISR',
  'processor-frequency': 'Processor Frequency',
  'cpu-idle-states': 'CPU Idle States',
  'window-in-focus': 'Window in Focus',
  'ui-delays': 'UI Delays',
  'gpu-utilization': 'GPU Utilization',
  'frame-times': 'Frame Times',
};
