// Runs scripts/mention-path.ts under tsx with V8 coverage on (see that file).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const dir = mkdtempSync(join(tmpdir(), 'tb-mention-path-'));
const r = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'mention-path.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit', env: { ...process.env, NODE_V8_COVERAGE: dir },
});
rmSync(dir, { recursive: true, force: true });
process.exit(r.status ?? 1);
