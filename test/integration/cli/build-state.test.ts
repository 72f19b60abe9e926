/**
 * bin/turnbridge.js runs dist/ (the tsc build of src/) and nothing else: with no build, or a
 * build older than a source, it refuses and says to run `npm run build`, so an edited source is
 * never silently run as its old build. The real bin/ files in a throwaway root, with a dist/ whose
 * cli.js would leave a mark if it ran.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli-process.js';

const { STAMP, staleReason } = createRequire(import.meta.url)(join(ROOT, 'bin/build-state.js')) as { STAMP: string; staleReason: (root: string) => string | null };

/** A root with bin/ (the real files), src/a/b.ts and a dist/src/cli.js that writes `ran`. */
function fakeRoot(): { root: string; ran: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'tb-build-state-'));
  for (const f of ['turnbridge.js', 'build-state.js', 'package.json']) {
    mkdirSync(join(root, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'bin', f), join(root, 'bin', f));
  }
  mkdirSync(join(root, 'src/a'), { recursive: true });
  writeFileSync(join(root, 'src/a/b.ts'), 'export {};\n');
  const ran = join(root, 'ran');
  mkdirSync(join(root, 'dist/src'), { recursive: true });
  writeFileSync(join(root, 'dist/src/cli.js'), `import { writeFileSync } from 'node:fs';\nexport async function main() { writeFileSync(${JSON.stringify(ran)}, 'x'); return 0; }\n`);
  writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
  return { root, ran, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

function stamp(root: string, at: Date): void {
  writeFileSync(join(root, STAMP), 'x\n');
  utimesSync(join(root, STAMP), at, at);
}

function setMtime(file: string, at: Date): void {
  utimesSync(file, at, at);
}

test('staleReason: no stamp, a source newer than the stamp, and a current build', () => {
  const { root, cleanup } = fakeRoot();
  try {
    assert.equal(staleReason(root), 'there is no build in dist/');
    const src = join(root, 'src/a/b.ts');
    setMtime(src, new Date(2_000_000_000_000));
    stamp(root, new Date(1_900_000_000_000));
    assert.equal(staleReason(root), `${join('src', 'a', 'b.ts')} changed after the last build`);
    stamp(root, new Date(2_100_000_000_000));
    assert.equal(staleReason(root), null);
  } finally {
    cleanup();
  }
});

test('bin/turnbridge.js with no build, or an old one, exits 1 saying to run npm run build, and runs nothing', () => {
  const { root, ran, cleanup } = fakeRoot();
  try {
    const run = () => spawnSync(process.execPath, [join(root, 'bin/turnbridge.js'), '--version'], { cwd: root, encoding: 'utf8' });
    let r = run();
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /there is no build in dist\/: run `npm run build`/);
    setMtime(join(root, 'src/a/b.ts'), new Date(2_000_000_000_000));
    stamp(root, new Date(1_900_000_000_000));
    r = run();
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /src\/a\/b\.ts changed after the last build: run `npm run build`/);
    assert.ok(!existsSync(ran), 'the old build did not run');
    stamp(root, new Date(2_100_000_000_000));
    r = run();
    assert.equal(r.status, 0, r.stderr);
    assert.ok(existsSync(ran), 'the current build ran');
  } finally {
    cleanup();
  }
});
