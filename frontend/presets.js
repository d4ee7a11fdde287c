// Presets like WPA's: each is a partial view state.

/** @type {{name: string, state: Partial<import('./url-state.js').ViewState>}[]} */
export const PRESETS = [
  { name: 'Utilization by Process, Stack', state: { view: 'table', table: 'cpu-sampled', groups: ['Process', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Utilization by Process, Thread, Stack', state: { view: 'table', table: 'cpu-sampled', groups: ['Process', 'Thread ID', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Utilization by Module, Function', state: { view: 'table', table: 'cpu-sampled', groups: ['Module', 'Function'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true } },
  { name: 'Flame by Process, Stack', state: { view: 'flame', table: 'cpu-sampled', groups: ['Process', 'Stack'], cols: ['Count', 'Weight (ms)', '% Weight'], sort: 'Weight (ms)', desc: true, perProcess: true } },
  { name: 'Lifetime by Process, Image', state: { view: 'table', table: 'images', groups: ['Process', 'Image Name', 'File Version', 'Image Path'], cols: ['Count'], sort: 'Count', desc: true } },
  { name: 'Images by File Version, Path', state: { view: 'table', table: 'images', groups: ['File Version', 'Image Path'], cols: ['Count'], sort: 'File Version', desc: false } },
  { name: 'Processes', state: { view: 'table', table: 'processes', groups: ['Process Name', 'Process', 'Command Line'], cols: ['Count'], sort: 'Count', desc: true } },
  { name: 'Threads by Process', state: { view: 'table', table: 'threads', groups: ['Process', 'Thread ID', 'Thread Name'], cols: ['Count'], sort: 'Count', desc: true } },
];
