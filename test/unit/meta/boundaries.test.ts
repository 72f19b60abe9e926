import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function layerOf(file: string): string {
  const rel = relative(SRC, file).split('/');
  if (rel[0] === 'platforms' && rel.length > 2) return `platforms/${rel[1]}`;
  return rel.length > 1 ? rel[0]! : '(root)';
}

const imports = (text: string) => [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);

// Imports point down only (DESIGN.md): a layer may import the layers listed for it.
const ALLOWED: Record<string, string[]> = {
  protocol: [],
  profile: ['protocol'],
  runner: ['protocol', 'profile'],
  delivery: ['protocol'],
  state: ['protocol', 'delivery'],
  config: ['protocol', 'profile'],
  replicas: [],
  bridge: ['protocol', 'profile', 'runner', 'delivery', 'config', 'state', 'replicas'],
  // The doctor checks everything below the entry points; platform checks load on demand.
  doctor: ['profile', 'runner', 'config', 'bridge', 'http', 'state', 'platforms/slack', 'platforms/discord'],
};

test('only platforms/* import @slack/bolt or discord.js', () => {
  for (const f of files(SRC)) {
    const layer = layerOf(f);
    for (const spec of imports(readFileSync(f, 'utf8'))) {
      if (/^(@slack\/|discord\.js|@discordjs\/)/.test(spec)) {
        assert.ok(layer.startsWith('platforms/'), `${relative(SRC, f)} imports ${spec}`);
      }
    }
  }
});

test('core layers import only layers below them', () => {
  for (const f of files(SRC)) {
    const layer = layerOf(f);
    const allowed = ALLOWED[layer];
    if (!allowed) continue;
    for (const spec of imports(readFileSync(f, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(f), spec);
      const targetLayer = layerOf(target.replace(/\.js$/, '.ts'));
      if (targetLayer === layer || targetLayer === '(root)') continue;
      assert.ok(allowed.includes(targetLayer), `${relative(SRC, f)} (${layer}) imports ${spec} (${targetLayer})`);
    }
  }
});
