/**
 * The environment is read in one place (src/config/bridge-env.ts says "nothing else reads process.env"):
 * the tools the bridge runs itself (git, bwrap, socat) get PATH and HOME from processEnv() there too.
 * A mention in a comment does not count; code anywhere else in src/ that reads process.env fails here.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..', '..');
const ALLOWED = new Set(['src/config/bridge-env.ts']);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** The code of a line: a line of a block comment is dropped, a // comment cut off. */
function codeOf(line: string): string {
  const t = line.trimStart();
  if (t.startsWith('*') || t.startsWith('/*')) return '';
  const cut = line.indexOf('//');
  return cut === -1 ? line : line.slice(0, cut);
}

function reads(text: string): number[] {
  return text.split('\n').flatMap((l, i) => (/\bprocess\.env\b/.test(codeOf(l)) ? [i + 1] : []));
}

test('only src/config/bridge-env.ts reads process.env', () => {
  const wrong: string[] = [];
  for (const f of tsFiles(join(root, 'src'))) {
    const rel = relative(root, f);
    if (ALLOWED.has(rel)) continue;
    for (const n of reads(readFileSync(f, 'utf8'))) wrong.push(`${rel}:${n}`);
  }
  assert.deepEqual(wrong, []);
});

test('the scan sees a read in code and passes over one in a comment', () => {
  assert.deepEqual(reads('const a = process.env.PATH;\n// process.env in prose\n * process.env in a doc comment\nf(process.env);'), [1, 4]);
  assert.ok(reads(readFileSync(join(root, 'src/config/bridge-env.ts'), 'utf8')).length > 0, 'bridge-env.ts itself is seen reading it');
});
