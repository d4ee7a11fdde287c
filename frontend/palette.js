// One colour palette for the timeline, flame graph and legends (readable on white).

export const SERIES = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
export const OTHER = '#c9ccd1';

/** A stable hash of a string. @param {string} s */
export function hash(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) { x ^= s.charCodeAt(i); x = Math.imul(x, 16777619); }
  return x >>> 0;
}

/** A series' colour from its row identity (not its rank), so it keeps it across zoom and filters,
 * and a process has one colour on the CPU timeline and in every table graph. @param {string} ref */
export function colourOf(ref) {
  const x = hash(ref);
  return `hsl(${x % 360} ${50 + ((x >> 9) % 25)}% ${48 + ((x >> 17) % 14)}%)`;
}

/** Warm flame colours keyed by module, so one module keeps one hue. @param {string} module */
export function moduleColour(module) {
  const x = hash(module);
  const hue = 8 + (x % 48);
  const sat = 62 + ((x >> 8) % 25);
  const light = 58 + ((x >> 16) % 14);
  return `hsl(${hue} ${sat}% ${light}%)`;
}

/** The module part of a frame label ("module!function"); managed frames use their namespace. @param {string} label */
export function moduleOf(label) {
  const i = label.indexOf('!');
  if (i >= 0) return label.slice(0, i);
  const j = label.indexOf('::');
  const ns = j >= 0 ? label.slice(0, j) : label;
  const k = ns.lastIndexOf('.');
  return k > 0 ? ns.slice(0, k) : ns;
}
