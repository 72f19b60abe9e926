/**
 * `turnbridge run` loads only what a run needs: not pino (its worker-thread transport
 * machinery), not the bridge, and no compiler: plain JavaScript from dist/ (tsx's loader hooks
 * cost ~250 ms a start). Checked on the real CLI process through Node's own list of
 * loaded built-in modules, so a new import on the run path that drags them in fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ECHO, runCli } from './cli-process.js';

test('turnbridge run loads no logging library, readline, http, bridge modules, tsx or loader hooks at start-up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tb-startup-'));
  try {
    const probe = join(dir, 'probe.cjs');
    const out = join(dir, 'modules.txt');
    const packagesOut = join(dir, 'packages.txt');
    // Built-ins from Node's own list; packages (all CommonJS here, imported or required) from require.cache.
    writeFileSync(probe, `process.on('exit', () => { const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')); fs.writeFileSync(${JSON.stringify(packagesOut)}, Object.keys(require.cache).join('\\n')); });\n`);
    const r = await runCli(['run', ECHO, '--message', 'hi', '--json'], { env: { NODE_OPTIONS: `--require ${probe}` } });
    assert.equal(r.code, 0, r.stderr);
    const loaded = readFileSync(out, 'utf8').split('\n');
    // readline only for a permission prompt; http(s) and assert come with pino and the bridge;
    // crypto with the replicas' HMAC (reading the configuration checks the key without it).
    for (const unwanted of ['NativeModule assert', 'NativeModule http', 'NativeModule https', 'NativeModule readline', 'NativeModule crypto']) {
      assert.ok(!loaded.includes(unwanted), `${unwanted} loaded by turnbridge run`);
    }
    // module.register (how tsx, or any compiler hook, is installed) loads Node's hooks module.
    assert.ok(!loaded.includes('NativeModule internal/modules/esm/hooks'), 'a module loader hook (tsx?) was registered by turnbridge run');
    assert.ok(loaded.includes('NativeModule child_process'), 'the probe saw the run (it spawned the agent)');
    const packages = new Set(readFileSync(packagesOut, 'utf8').split('\n').map((p) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1]).filter(Boolean));
    assert.ok(packages.has('yaml'), 'the probe saw the profile being parsed');
    for (const unwanted of ['pino', 'pino-pretty', '@slack/bolt', 'discord.js', 'better-sqlite3', 'ioredis', '@redis/client', 'prom-client', 'tsx', 'esbuild', 'typescript']) {
      assert.ok(!packages.has(unwanted), `${unwanted} loaded by turnbridge run`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
