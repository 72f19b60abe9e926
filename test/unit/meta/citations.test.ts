/**
 * What the code's comments and docs/architecture.md point a reader to is in the repository: every
 * file they name (`x.ts`, `delivery/reply/render.ts`, `docs/security.md`) exists, and none points
 * to notes outside it (a design file, a "pitfall" list, the session's style or design notes, the
 * numbered rounds of work that wrote the code): a reader of the repository cannot open those.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The repository's files (what git would list; read from disk: a unit test starts no process). */
const SKIP = new Set(['.git', 'node_modules', 'dist', 'data', '.probe']);
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p) : [relative(ROOT, p)];
  });
}
const tracked = walk(ROOT);
const repo = new Set(tracked);
const names = new Set(tracked.map((f) => basename(f)));

/** A file name in prose: a path of word characters ending in .ts, .mjs or .md (not inside a URL). */
const FILE = /(?<![\w@./:-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs|md))(?![\w/])/g;

function exists(cited: string, from: string): boolean {
  if (!cited.includes('/')) return names.has(cited);
  const tries = [join(dirname(from), cited), cited, join('src', cited)].map((p) => normalize(p));
  return tries.some((p) => repo.has(p)) || tracked.some((f) => f.endsWith(`/${cited}`));
}

function comments(text: string): string[] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\w])\/\/[^\n]*/g)].map((m) => m[0]);
}

/** Notes that live outside the repository, by the names comments have used for them. */
const OUTSIDE = [/\bpitfall\s+P\d+\b/gi, /\bwave\s+\d+/gi, /\bDESIGN\.md\b/g, /\bSTYLE\.md\b/g, /\.\.\/shared\b/g];

function outside(file: string, chunks: string[]): string[] {
  return chunks.flatMap((chunk) => OUTSIDE.flatMap((re) => [...chunk.matchAll(re)].map((m) => `${file}: ${m[0]} (a note outside the repository)`)));
}

function unresolved(file: string, chunks: string[]): string[] {
  const out: string[] = [];
  for (const chunk of chunks) for (const m of chunk.matchAll(FILE)) if (!exists(m[1]!, file)) out.push(`${file}: ${m[1]}`);
  return [...out, ...outside(file, chunks)];
}

test('comments in src/ cite only files in the repository', () => {
  const wrong = tracked.filter((f) => f.startsWith('src/') && f.endsWith('.ts'))
    .flatMap((f) => unresolved(f, comments(readFileSync(join(ROOT, f), 'utf8'))));
  assert.deepEqual(wrong, []);
});

test('comments in test/ point to no notes outside the repository', () => {
  const wrong = tracked.filter((f) => f.startsWith('test/') && /\.(?:ts|mjs)$/.test(f))
    .flatMap((f) => outside(f, comments(readFileSync(join(ROOT, f), 'utf8'))));
  assert.deepEqual(wrong, []);
});

test('the outside-notes patterns catch each name comments have used', () => {
  const caught = outside('x.ts', ['measured on wave 1', 'see DESIGN.md and STYLE.md', 'in ../shared/notes', 'pitfall P3', 'a wavelength of 3']);
  assert.equal(caught.length, 5);
});

test('docs/architecture.md names only files in the repository', () => {
  const doc = 'docs/architecture.md';
  const code = [...readFileSync(join(ROOT, doc), 'utf8').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  // Paths in the layer tree and the walk are relative to src/ unless they start with a top folder.
  assert.deepEqual(unresolved(doc, code), []);
});

test('the walk of one Slack mention (docs/architecture.md) names at most 40 files of src/', () => {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf('## One Slack mention, event to final edit');
  assert.ok(start >= 0, 'docs/architecture.md has the walk');
  const head = doc.indexOf('| step |', start);
  const table = doc.slice(head, doc.indexOf('\n\n', head));
  const named = new Set([...table.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!).filter((f) => !f.startsWith('test/')));
  assert.ok(named.size > 0 && named.size <= 40, `the walk names ${named.size} files of src/`);
  for (const f of named) assert.ok(repo.has(join('src', f)), `the walk names ${f}, which is not in src/`);
});
