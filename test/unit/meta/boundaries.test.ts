/**
 * The layers of src/ and the one rule between them (docs/architecture.md, "Layers"): a file
 * imports only files of its own layer or of a layer below it, siblings (layers of one rank) do not
 * import each other, a room (a folder inside delivery/, bridge/ or runner/) is entered by its index.ts, and
 * no chain of imports (type imports included) comes back to where it started. No exceptions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/**
 * Rank by rank, lowest first; each rank names its layers and the paths (relative to src/) each
 * holds: a folder ends with '/', and a file's layer is the longest path it starts with. Root files
 * that no rank names are the base (log, errors, the chat's nouns…).
 */
const RANKS: Array<Record<string, string[]>> = [
  { base: [] },
  { protocol: ['protocol/'] },
  { profile: ['profile/'] },
  { config: ['config/'] },
  { redis: ['redis/'] },
  { state: ['state/'], replicas: ['replicas/'], runner: ['runner/'] },
  { 'delivery (surface, types)': ['delivery/surface.ts', 'delivery/types.ts'] },
  { 'delivery/pacing': ['delivery/pacing/'] },
  { 'delivery/message': ['delivery/message/'] },
  { 'delivery/stream': ['delivery/stream/'] },
  { 'delivery/reply': ['delivery/reply/'] },
  { delivery: ['delivery/'] },
  { 'bridge (types, metrics)': ['bridge/types.ts', 'bridge/metrics.ts'] },
  { 'bridge/access': ['bridge/access/'] },
  { 'bridge/approvals': ['bridge/approvals/'] },
  { 'bridge/turns': ['bridge/turns/'] },
  { bridge: ['bridge/'] },
  { http: ['http/'] },
  { 'platforms (shared)': ['platforms/attachments.ts', 'platforms/index.ts'] },
  { 'platforms/slack': ['platforms/slack/'], 'platforms/discord': ['platforms/discord/'], 'platforms/local': ['platforms/local/'] },
  { doctor: ['doctor/'] },
  // main.ts is the body of `turnbridge start` (cli/start.ts runs it; it prints the start usage line)
  { 'commands and start-up': ['cli/', 'main.ts'] },
  { 'the command': ['cli.ts'] },
];

/** Rooms: entered from outside only through their index.ts. */
const ROOMS = ['delivery/pacing/', 'delivery/message/', 'delivery/stream/', 'delivery/reply/', 'bridge/access/', 'bridge/approvals/', 'bridge/turns/', 'runner/sandbox/'];

const KEYS = RANKS.flatMap((rank, r) => Object.entries(rank).flatMap(([layer, paths]) => paths.map((p) => ({ p, layer, r }))))
  .sort((a, b) => b.p.length - a.p.length);

function layerOf(rel: string): { layer: string; rank: number } {
  const hit = KEYS.find((k) => (k.p.endsWith('/') ? rel.startsWith(k.p) : rel === k.p));
  if (hit) return { layer: hit.layer, rank: hit.r };
  assert.ok(!rel.includes('/'), `${rel}: its folder has no rank in RANKS (add the folder where it belongs)`);
  return { layer: 'base', rank: 0 };
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every module a file names: static imports, re-exports, `import('…')` and `import type`. */
const specifiers = (text: string) => [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

/** src/-relative file -> the src/-relative files it imports. */
function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(SRC)) {
    const rel = relative(SRC, f);
    const out = specifiers(readFileSync(f, 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(SRC, resolve(dirname(f), s)).replace(/\.js$/, '.ts'));
    g.set(rel, out);
  }
  return g;
}

test('every rank is a real layer: each path a rank names exists', () => {
  for (const k of KEYS) {
    const p = join(SRC, k.p);
    assert.ok(statSync(p, { throwIfNoEntry: false }), `RANKS names ${k.p}, which is not in src/`);
  }
});

test('only platforms/* import @slack/bolt or discord.js', () => {
  for (const f of files(SRC)) {
    const rel = relative(SRC, f);
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      if (/^(@slack\/|discord\.js|@discordjs\/)/.test(spec)) assert.ok(rel.startsWith('platforms/'), `${rel} imports ${spec}`);
    }
  }
});

test('only redis/ reaches Redis: one client library (ioredis), one owner of the connections', () => {
  for (const f of files(SRC)) {
    const rel = relative(SRC, f);
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      if (/^(ioredis|redis|@keyv\/redis)$/.test(spec) || spec.startsWith('@redis/')) assert.ok(rel.startsWith('redis/'), `${rel} imports ${spec}`);
    }
  }
});

test('only state/keyv-records.ts uses Keyv: one way to keep a plain record (its job in the state)', () => {
  for (const f of files(SRC)) {
    const rel = relative(SRC, f);
    for (const spec of specifiers(readFileSync(f, 'utf8'))) {
      if (spec === 'keyv' || spec.startsWith('@keyv/')) assert.equal(rel, 'state/keyv-records.ts', `${rel} imports ${spec}`);
    }
  }
});

test('imports point down: a file imports its own layer or a lower rank, never a sibling', () => {
  const wrong: string[] = [];
  for (const [from, tos] of graph()) {
    const a = layerOf(from);
    for (const to of tos) {
      const b = layerOf(to);
      if (a.layer === b.layer || b.rank < a.rank) continue;
      wrong.push(`${from} (${a.layer}) imports ${to} (${b.layer}${b.rank === a.rank ? ', a sibling' : ', above it'})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a room is entered by its index.ts', () => {
  const wrong: string[] = [];
  for (const [from, tos] of graph()) {
    for (const to of tos) {
      const room = ROOMS.find((r) => to.startsWith(r));
      if (room && !from.startsWith(room) && to !== `${room}index.ts`) wrong.push(`${from} imports ${to} (enter ${room} by its index.ts)`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('each folder of src/ opens with its index.ts and a paragraph on what it holds', () => {
  const folders = new Set(files(SRC).map((f) => relative(SRC, dirname(f))).filter((d) => d !== ''));
  const missing = [...folders].filter((d) => {
    const index = join(SRC, d, 'index.ts');
    return !statSync(index, { throwIfNoEntry: false }) || !/^\/\*\*[\s\S]{80,}?\*\//.test(readFileSync(index, 'utf8'));
  });
  assert.deepEqual(missing, []);
});

test('no import cycle, type imports included', () => {
  const g = graph();
  // Tarjan's strongly connected components: any component of more than one file is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (g.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});
