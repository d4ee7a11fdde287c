// Provider schemas in the library (issue 34): a manifest dropped on the library's drop zone is kept
// on the server as a schema pack (not uploaded as a trace), listed with its provider and events, and
// still there after a reload; a broken one says which line is at fault. The manifest is written here,
// and what the page must list is counted by hand from it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage } from './browser.mjs';
import { buildRelease, startServer, repoRoot } from './server.mjs';

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
