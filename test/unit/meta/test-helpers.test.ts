/** Tests reuse the shared fakes instead of growing copies of them (a second copy is merged, never a third added). */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const TEST = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|mjs)$/.test(p) ? [p] : [];
  });
}

test('a real redis-server is started only by test/fakes/redis-server.ts (startRedisServer)', () => {
  const own = [...files(TEST)]
    .filter((f) => relative(TEST, f) !== 'fakes/redis-server.ts' && f !== fileURLToPath(import.meta.url))
    .filter((f) => /spawn(?:Sync)?\(\s*['"]redis-server['"]/.test(readFileSync(f, 'utf8')))
    .map((f) => relative(TEST, f));
  assert.deepEqual(own, []);
});
