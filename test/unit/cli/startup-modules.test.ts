/**
 * `turnbridge run` loads only what a run needs: not pino (its worker-thread transport
 * machinery) and not the bridge. Checked on the real CLI process through Node's own list of
 * loaded built-in modules, so a new import on the run path that drags them in fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, ROOT, runCli } from './cli-process.js';

test('turnbridge run loads no logging library, worker threads, readline or bridge modules at start-up, and its bundle holds none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-startup-'));
  try {
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'modules.txt');
    writeFileSync(probe, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`);
    for (let i = 0; i < 2; i++) { // the first run may build the start-up bundle (esbuild loads more)
      const r = await runCli(['run', ECHO, '--message', 'hi', '--json'], { env: { NODE_OPTIONS: `--require ${probe}` } });
      assert.equal(r.code, 0, r.stderr);
    }
    const loaded = readFileSync(out, 'utf8').split('\n');
    // readline only for a permission prompt, fs/promises not at all: each is modules parsed per start.
    for (const unwanted of ['NativeModule worker_threads', 'NativeModule assert', 'NativeModule http', 'NativeModule https', 'NativeModule readline', 'NativeModule fs/promises']) {
      assert.ok(!loaded.includes(unwanted), `${unwanted} loaded by turnbridge run`);
    }
    assert.ok(loaded.includes('NativeModule child_process'), 'the probe saw the run (it spawned the agent)');
    // What the fast-start bundle holds (bin/cli-cache.js): parsed on every run, so no bridge in it.
    const cache = join(ROOT, 'node_modules/.cache/turnbridge');
    const manifest = JSON.parse(readFileSync(join(cache, 'cli-manifest.json'), 'utf8')) as { dir: string; inputs: Array<[string, number, number]> };
    const sources = manifest.inputs.map(([p]) => p.slice(ROOT.length));
    for (const s of sources) assert.ok(!/^\/src\/(bridge|platforms|delivery|config|http)\/|^\/src\/main\.ts$/.test(s), `${s} is in the run bundle`);
    const bytes = statSync(join(cache, manifest.dir, 'cli.cjs')).size;
    assert.ok(bytes < 512 * 1024, `the run bundle is ${Math.round(bytes / 1024)} KiB (bridge or platform packages in it?)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
