// npm run build (also npm's `prepare`, so `npm ci` builds): src/ compiled by tsc into dist/src/,
// plus the local page's static files, then dist/.build-stamp dated when this build began (see
// bin/build-state.js). dist/ is removed first, so no output of a deleted source survives.
// Plain Node, no tsx: it runs before anything is built.
// --if-stale: only when dist/ is missing or older than a source (test/run.mjs, npm run bench).
import { cpSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const state = require('../bin/build-state.js');
const began = new Date();

if (process.argv.includes('--if-stale')) {
  const stale = state.staleReason(root);
  if (stale === null) process.exit(0);
  process.stderr.write(`build: ${stale}: npm run build\n`);
}

rmSync(join(root, 'dist'), { recursive: true, force: true });
const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  process.stderr.write('build: tsc failed; dist/ is incomplete and turnbridge will not run it\n');
  process.exit(r.status ?? 1);
}
cpSync(join(root, 'src/platforms/local/page'), join(root, 'dist/src/platforms/local/page'), { recursive: true });
const stamp = join(root, state.STAMP);
writeFileSync(stamp, `built from the sources as of ${began.toISOString()}\n`);
utimesSync(stamp, began, began);
