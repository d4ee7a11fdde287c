// WPA's System Configuration view: the trace's SysConfig rundown as pages of small tables
// (General, Storage, Network, Services, PnP, Display). Every string from the trace is set as text.
import * as api from './api.js';
import { h, clear, fmtInt, fmtSize } from './dom.js';

const PAGES = ['General', 'Storage', 'Network', 'Services', 'PnP', 'Display'];

/**
 * A grid of rows; `cols` are [header, key, numeric?, format?].
 * @param {string} testid @param {[string, string, boolean?, ((v: any) => string)?][]} cols @param {any[]} rows
 */
function grid(testid, cols, rows) {
  const head = h('tr', {}, cols.map(([name, , num]) => h('th', { class: num ? 'num' : '', text: name })));
  const body = rows.map((r) => h('tr', {}, cols.map(([, key, num, f]) => {
    const v = r[key];
    const text = f ? f(v) : (v === null || v === undefined ? '' : String(v));
    return h('td', { class: num ? 'num' : '', text });
  })));
  return h('table', { class: 'grid sysconfig-grid', 'data-testid': testid }, [h('thead', {}, [head]), h('tbody', {}, body)]);
}

const size = (/** @type {number} */ v) => fmtSize(v);
const int = (/** @type {number} */ v) => fmtInt(v);
const yes = (/** @type {boolean} */ v) => (v ? 'Yes' : 'No');

/** @param {string} title @param {HTMLElement} content */
const section = (title, content) => h('section', { class: 'sysconfig-section' }, [h('h3', { text: title }), content]);

/** @param {any} c @param {string} page @returns {HTMLElement[]} */
function pageContent(c, page) {
  if (page === 'General') {
    const rows = [
      ['Computer Name', c.computer_name], ['Domain', c.domain_name],
      ['Processors', c.processors], ['Processor Speed (MHz)', c.mhz],
      ['Memory (MB)', c.memory_mb], ['Page Size', c.page_size],
      ['Allocation Granularity', c.allocation_granularity],
      ['Sleep States', (c.sleep_states || []).join(', ')],
    ].map(([k, v]) => ({ k, v }));
    return [section('General', grid('sysconfig-general', [['Property', 'k'], ['Value', 'v']], rows))];
  }
  if (page === 'Storage') {
    return [
      section('Disks', grid('sysconfig-disks', [['Disk', 'disk_number', true], ['Manufacturer', 'manufacturer'], ['Size', 'size_bytes', true, size],
        ['Bytes / Sector', 'bytes_per_sector', true], ['Partitions', 'partition_count', true], ['Write Cache', 'write_cache_enabled', false, yes],
        ['Boot Drive', 'boot_drive_letter']], c.disks)),
      section('Volumes', grid('sysconfig-volumes', [['Drive', 'drive_letter'], ['File System', 'file_system'], ['Disk', 'disk_number', true],
        ['Partition', 'partition_number', true], ['Size', 'size_bytes', true, size], ['Free', 'free_bytes', true, size]], c.volumes)),
    ];
  }
  if (page === 'Network') {
    return [section('Network Adapters', grid('sysconfig-nics', [['Description', 'description'], ['Physical Address', 'mac'],
      ['IP Addresses', 'ip_addresses'], ['DNS Servers', 'dns_servers']], c.nics))];
  }
  if (page === 'Services') {
    return [section(`Services (${int(c.services)}, ${int(c.running_services)} running)`, grid('sysconfig-services', [['Name', 'name'],
      ['Display Name', 'display_name'], ['State', 'state'], ['Process', 'process_name'], ['PID', 'pid', true], ['Group', 'group']], c.service_list))];
  }
  if (page === 'PnP') {
    return [section(`PnP Devices (${int(c.pnp_devices)})`, grid('sysconfig-pnp', [['Description', 'description'], ['Friendly Name', 'friendly_name'],
      ['Service', 'service_name'], ['Device ID', 'device_id']], c.pnp_list))];
  }
  return [section('Video Adapters', grid('sysconfig-video', [['Adapter', 'adapter'], ['Chip', 'chip_type'], ['Memory', 'memory_bytes', true, size],
    ['Width', 'x_resolution', true], ['Height', 'y_resolution', true], ['Bits / Pixel', 'bits_per_pixel', true], ['Refresh (Hz)', 'refresh_hz', true]], c.video))];
}

/**
 * Render the view into `body`; `page` is one of PAGES, `onPage` records a change of page.
 * @param {HTMLElement} body @param {string} traceId @param {string} page @param {(p: string) => void} onPage
 */
export async function renderSystemConfig(body, traceId, page, onPage) {
  const wrap = h('div', { class: 'sysconfig', 'data-testid': 'sysconfig' }, [h('div', { class: 'empty', text: 'Loading…' })]);
  body.append(wrap);
  let c;
  try {
    c = await api.systemConfig(traceId);
  } catch (e) {
    clear(wrap);
    wrap.append(h('div', { class: 'empty', text: `System configuration unavailable: ${e instanceof Error ? e.message : e}` }));
    return;
  }
  clear(wrap);
  if (!c) {
    wrap.append(h('div', { class: 'empty', 'data-testid': 'sysconfig-none', text: 'This trace has no system configuration (the kernel logger wrote no SysConfig rundown).' }));
    return;
  }
  const current = PAGES.includes(page) ? page : 'General';
  const nav = h('div', { class: 'sysconfig-pages', role: 'tablist' }, PAGES.map((p) => h('button', {
    class: `btn ${p === current ? 'on' : ''}`, text: p, 'data-testid': `sysconfig-page-${p}`,
    onclick: () => { onPage(p); show(p); },
  })));
  const content = h('div', { class: 'sysconfig-content' });
  wrap.append(nav, content);
  /** @param {string} p */
  function show(p) {
    for (const b of nav.children) b.classList.toggle('on', b.textContent === p);
    clear(content);
    content.append(...pageContent(c, p));
  }
  show(current);
}
