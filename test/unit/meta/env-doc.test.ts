/** Every variable the configuration reads is described in .env.example (doctor and deployments rely on it). */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '..', '..', '..');
const sources = [
  ...readdirSync(join(root, 'src/config')).map((f) => join('src/config', f)),
  'src/main.ts', 'src/platforms/slack/config.ts', 'src/platforms/discord/config.ts',
];

test('.env.example names every variable the configuration reads', () => {
  const example = readFileSync(join(root, '.env.example'), 'utf8');
  const names = new Set<string>();
  for (const f of sources) {
    for (const m of readFileSync(join(root, f), 'utf8').matchAll(/'((?:TURNBRIDGE|SLACK|DISCORD)_[A-Z_]+)'/g)) names.add(m[1]!);
  }
  assert.ok(names.has('TURNBRIDGE_ALLOW_USERS') && names.has('TURNBRIDGE_SANDBOX'), 'the scan finds the variables');
  const missing = [...names].filter((n) => !example.includes(n));
  assert.deepEqual(missing, []);
});
