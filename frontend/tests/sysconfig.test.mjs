// The System Configuration tab on perfview-net452-x64.etl: WPA's pages (General, Storage, Network,
// Services, PnP, Display) with the values hand-decoded from the SysConfig payloads
// (crates/etl/tests/decode_real.rs), strings shown as text, the page kept in the link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, newPage as openPage, waitTable } from './browser.mjs';
import { realTraces, buildRelease, startServer } from './server.mjs';

const traces = realTraces();
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;

before(async () => {
  if (!traces) return;
  buildRelease();
  srv = await startServer([path.join(traces, 'perfview-net452-x64.etl'), path.join(traces, 'perfview-gcevents.etl')]);
  browser = await launch();
});
after(async () => { if (browser) await browser.close(); if (srv) srv.stop(); });

/** @param {import('playwright-core').Page} p @param {string} testid */
const cells = (p, testid) => p.$$eval(`[data-testid=${testid}] tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));

test('System Configuration: the pages of the trace\'s SysConfig rundown', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[0]}`);
  await waitTable(p);
  await p.click('[data-testid=tab-sysconfig]');
  await p.waitForURL(/view=sysconfig/);
  await p.waitForSelector('[data-testid=sysconfig-general]');
  const general = Object.fromEntries(await cells(p, 'sysconfig-general'));
  // CPU event @0: (3592 MHz, 8 processors, 4096 MB, page 4096, granularity 65536), name @20.
  assert.equal(general['Computer Name'], 'BRIANROB-W8');
  assert.equal(general['Processors'], '8');
  assert.equal(general['Processor Speed (MHz)'], '3592');
  assert.equal(general['Memory (MB)'], '4096');
  assert.equal(general['Sleep States'], 'S5');

  await p.click('[data-testid=sysconfig-page-Storage]');
  const disks = await cells(p, 'sysconfig-disks');
  assert.equal(disks.length, 1);
  assert.equal(disks[0][1], 'Virtual HD ATA Device');
  const vols = await cells(p, 'sysconfig-volumes');
  assert.deepEqual(vols.map((r) => [r[0], r[1]]), [['C:', 'NTFS']]);

  await p.click('[data-testid=sysconfig-page-Network]');
  const nics = await cells(p, 'sysconfig-nics');
  assert.deepEqual(nics.map((r) => r[0]), ['Microsoft Hyper-V Network Adapter', 'Software Loopback Interface 1', 'Microsoft ISATAP Adapter']);
  assert.equal(nics[0][1], '00-15-5D-7C-58-28');

  await p.click('[data-testid=sysconfig-page-Services]');
  await p.waitForURL(/sc=Services/);
  const services = await cells(p, 'sysconfig-services');
  assert.equal(services.length, 157);
  assert.equal(services.filter((r) => r[2] === 'Running').length, 67);
  const dhcp = services.find((r) => r[0] === 'Dhcp');
  assert.deepEqual(dhcp, ['Dhcp', 'DHCP Client', 'Running', 'svchost.exe', '944', 'TDI']);

  await p.click('[data-testid=sysconfig-page-PnP]');
  const pnp = await cells(p, 'sysconfig-pnp');
  assert.equal(pnp.length, 78);
  // Device IDs have '&' and '\': text, not markup.
  assert.equal(pnp[0][3], 'PCI\\VEN_1414&DEV_5353&SUBSYS_00000000&REV_00\\3&267A616A&1&40');
  assert.equal(pnp[23][1], 'Communications Port (COM1)');

  await p.click('[data-testid=sysconfig-page-Display]');
  assert.equal((await cells(p, 'sysconfig-video')).length, 0); // no Video event in this trace

  // The link keeps the page.
  await p.click('[data-testid=sysconfig-page-Network]');
  await p.waitForURL(/sc=Network/);
  await p.reload();
  await p.waitForSelector('[data-testid=sysconfig-nics]');
  assert.deepEqual(errors, []);
  await c.close();
});

test('System Configuration: a trace without a SysConfig rundown says so', { skip: !traces }, async () => {
  const { p, c, errors } = await openPage(browser);
  await p.goto(`${srv.url}/t/${srv.ids[1]}?view=sysconfig`);
  await p.waitForSelector('[data-testid=sysconfig-none]');
  assert.deepEqual(errors, []);
  await c.close();
});
