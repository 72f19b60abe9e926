// Node 20's test runner does not expand globs: find the test files here and hand them over.
// Usage: node test/run.mjs [dir-or-file ...]   (default: all of test/)
// Tiers: test/unit runs in-process only (test/tier-guard.mjs refuses a process started there), the
// edit loop's `npm run test:unit`; test/integration starts agents, CLIs and redis-server; test/e2e
// drives the fakes end to end; `npm test` runs them all.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(p, out) {
  if (statSync(p).isDirectory()) {
    for (const name of readdirSync(p).sort()) {
      if (name === 'node_modules' || name === 'fixtures') continue;
      collect(join(p, name), out);
    }
  } else if (p.endsWith('.test.ts')) out.push(p);
  return out;
}

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = (roots.length ? roots : ['test']).flatMap((r) => collect(r, []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The real-CLI suite needs claude, codex and gemini at pinned versions: install them first
// (into a cache shared by clones; a CLI that cannot be installed is skipped with the reason).
if (files.some((f) => f.split(/[\\/]/).includes('real-cli'))) {
  spawnSync(process.execPath, [join(import.meta.dirname, 'real-cli', 'install-clis.mjs')], { stdio: 'inherit' });
}
// Tests that spawn bin/turnbridge.js run dist/ (the one build of src/), which refuses to run when
// older than the sources: build first when it is (npm ci built it once; an edit since makes it old).
// test/unit spawns nothing, so it needs no build.
const unitOnly = files.every((f) => f.split(/[\\/]/).slice(0, 2).join('/') === 'test/unit');
if (!unitOnly) {
  const b = spawnSync(process.execPath, [join(import.meta.dirname, '..', 'scripts', 'build.mjs'), '--if-stale'], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const guard = join(import.meta.dirname, 'tier-guard.mjs');
const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', guard, '--test', '--test-concurrency=2', ...flags, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
