/** Every variable the configuration reads is described in .env.example (doctor and deployments rely on it). */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SECRET_VARS } from '../../../src/config/secret-files.js';

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
  // Every secret may come from NAME_FILE (secret-files.ts builds those names, so the scan cannot see them).
  for (const n of SECRET_VARS) names.add(n).add(`${n}_FILE`);
  const missing = [...names].filter((n) => !documented(example).has(n)).sort();
  assert.deepEqual(missing, []);
});

/** The names set on a line of their own, `NAME=…` or commented out `# NAME=…` (a mention in prose or a longer name does not count). */
function documented(example: string): Set<string> {
  return new Set([...example.matchAll(/^#?[ \t]*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
}

test('documented() matches whole NAME= lines only', () => {
  const names = documented('# SLACK_APP_TOKEN_FILE=/run/secrets/x\nSLACK_BOT_TOKEN=xoxb-\n# set REDIS_URL to use Redis\n#   PORT=3000\n');
  assert.deepEqual([...names].sort(), ['PORT', 'SLACK_APP_TOKEN_FILE', 'SLACK_BOT_TOKEN']);
});
