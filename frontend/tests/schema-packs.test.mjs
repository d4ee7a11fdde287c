// Provider schemas in the library (issue 34): a manifest dropped on the library's drop zone is kept
// on the server as a schema pack (not uploaded as a trace), listed with its provider and events, and
// still there after a reload; a broken one says which line is at fault. The manifest is written here,
// and what the page must list is counted by hand from it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, waitTable } from './browser.mjs';
import { buildRelease, startServer, repoRoot, realTraces } from './server.mjs';

const DEMO = path.join(repoRoot, 'traces/explorer-overlay.etl');
// Two events with readable templates (id 10 v1, id 11 v0); line 9 closes <tasks> in the broken copy.
const MANIFEST = `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation>
  <events>
   <provider name="Contoso-Demo" guid="{1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9}" symbol="Demo">
    <tasks>
     <task name="Xfer" value="1"/>
     <task name="Idle" value="2"/>
    </tasks>
    <events>
     <event value="10" version="1" task="Xfer" opcode="win:Start" level="win:Informational" template="T"/>
     <event value="11" version="0" task="Idle" level="win:Verbose"/>
    </events>
    <templates>
     <template tid="T"><data name="PID" inType="win:UInt32"/><data name="who" inType="win:UnicodeString"/></template>
    </templates>
   </provider>
  </events>
 </instrumentation>
</instrumentationManifest>
`;
// For the Visual Studio diagsession's provider 9e5f9046-... (no schema in the trace, none in the
// built-in pack): Start (id 1 v2) of pid 2140, by hand from its payload 5c080000 02000000 2a305e35 03000000.
const DIAGHUB = `<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"><instrumentation><events>
<provider name="Test-DiagHub-Collector" guid="{9e5f9046-43c6-4f62-ba13-7b19896253ff}">
<tasks><task name="Collection" value="1"/></tasks>
<events><event value="1" version="2" task="Collection" opcode="win:Start" level="win:Informational" template="Start"/></events>
<templates><template tid="Start"><data name="ProcessId" inType="win:UInt32"/><data name="Kind" inType="win:UInt32"/><data name="Stamp" inType="win:UInt64"/></template></templates>
</provider></events></instrumentation></instrumentationManifest>`;
/** @type {any} */ let srv;
/** @type {import('playwright-core').Browser} */ let browser;
let tmp = '';

before(async () => {
  buildRelease();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'etlscope-schemas-'));
  srv = await startServer([DEMO]);
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
  if (srv) srv.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a manifest dropped on the library is kept as a schema pack; a broken one names its line', async () => {
  const { p, errors } = await newPage(browser);
  await p.goto(`${srv.url}/`);
  await p.waitForSelector('[data-testid=schema-packs] li');
  assert.match(await p.textContent('[data-testid=schema-packs]') || '', /None: Windows providers are named by the built-in pack only/);

  // Drop the manifest on the trace drop zone, as a user drags it from Explorer.
  await p.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'contoso.man', { type: 'application/xml' }));
    document.querySelector('[data-testid=dropzone]')?.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, MANIFEST);
  await p.waitForFunction(() => /imported/.test(document.querySelector('[data-testid=schema-packs-state]')?.textContent || ''));
  assert.equal(await p.textContent('[data-testid=schema-packs-state]'), 'Schemas "contoso" imported: Contoso-Demo, 2 events');
  await p.waitForFunction(() => /contoso/.test(document.querySelector('[data-testid=schema-packs]')?.textContent || ''));
  assert.equal((await p.textContent('[data-testid=schema-pack]'))?.trim(), 'contoso Contoso-Demo: 2 events Remove');
  assert.equal(await p.locator('[data-testid=upload-item]').count(), 0, 'the manifest is no trace upload');

  // A broken manifest through the picker: the server's message names the line.
  const broken = path.join(tmp, 'broken.man');
  fs.writeFileSync(broken, MANIFEST.replace('value="2"/>', 'value="2">'));
  await p.setInputFiles('[data-testid=schema-packs-file]', broken);
  await p.waitForFunction(() => /Cannot import/.test(document.querySelector('[data-testid=schema-packs-state]')?.textContent || ''));
  assert.equal(await p.textContent('[data-testid=schema-packs-state]'), 'Cannot import broken.man: broken:9: </tasks> closes <task> of line 8');

  // Kept in the library: listed again after a reload, and by the API.
  await p.reload();
  await p.waitForFunction(() => /contoso/.test(document.querySelector('[data-testid=schema-packs]')?.textContent || ''));
  const r = await (await fetch(`${srv.url}/api/schemas`)).json();
  assert.deepEqual(r.packs.map((/** @type {any} */ x) => [x.name, x.events]), [['contoso', 2]]);
  assert.deepEqual(errors, []);
});

test('the trace page names the packs that named its providers in its link; a link naming a missing pack says so', async (t) => {
  const dir = realTraces();
  if (!dir) { t.skip('no real traces'); return; }
  const real = await startServer([path.join(dir, 'vs-dotnetcore31.diagsession')], 300000);
  try {
    const { p, errors } = await newPage(browser);
    await p.goto(`${real.url}/`);
    await p.waitForSelector('[data-testid=schema-packs] li');
    const file = path.join(tmp, 'diaghub.man');
    fs.writeFileSync(file, DIAGHUB);
    await p.setInputFiles('[data-testid=schema-packs-file]', file);
    await p.waitForFunction(() => /imported/.test(document.querySelector('[data-testid=schema-packs-state]')?.textContent || ''));
    assert.equal(await p.textContent('[data-testid=schema-packs-state]'), 'Schemas "diaghub" imported: Test-DiagHub-Collector, 1 events; 1 loaded trace(s) load again');

    // The Generic Events of the provider, named by the pack; the link names it.
    await p.goto(`${real.url}/t/${real.ids[0]}?t=generic&view=table&g=Event Name&f=${encodeURIComponent('Provider=Test-DiagHub-Collector')}`);
    await waitTable(p, 300000);
    await p.waitForFunction(() => new URLSearchParams(location.search).get('schemas') === 'diaghub');
    assert.match(await p.textContent('[data-testid=table]') || '', /Collection\/Start/);

    // A link naming a pack this library lacks: a notice.
    await p.goto(`${real.url}/t/${real.ids[0]}?schemas=diaghub,nope`);
    await p.waitForFunction(() => /not in this library/.test(document.querySelector('[data-testid=notices]')?.textContent || ''));
    assert.match(await p.textContent('[data-testid=notices]') || '', /Schema pack\(s\) "nope" named by this link are not in this library/);
    assert.equal(new URL(p.url()).searchParams.get('schemas'), 'diaghub');
    assert.deepEqual(errors, []);
  } finally {
    real.stop();
  }
});
