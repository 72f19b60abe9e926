// Loaded into every test process by test/run.mjs. A test file under test/unit/ runs in its own
// process and nothing else: no agent, no CLI, no redis-server, no git. Starting one throws, with
// where such a test belongs (test/integration/), so `npm run test:unit` stays the fast edit loop.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { sep } from 'node:path';

const file = process.argv[1] ?? '';
if (process.env.NODE_TEST_CONTEXT && file.includes(`${sep}test${sep}unit${sep}`)) {
  const childProcess = createRequire(import.meta.url)('node:child_process');
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = (command) => {
      throw new Error(`${file}: a test in test/unit starts no process (${name} ${String(command)}); it belongs in test/integration/`);
    };
  }
  syncBuiltinESMExports();
}
