/**
 * `npm run bench`: runs each bench/*.bench.ts in turn, each as its own process (so one
 * benchmark's heap and timers never disturb the next), and passes their output through.
 * Usage: tsx bench/run.ts [name-filter ...]   e.g. `npm run bench -- runner`
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
  .sort();

if (files.length === 0) {
  console.error(`no bench/*.bench.ts files${filters.length ? ` matching ${filters.join(', ')}` : ''}`);
  process.exit(1);
}

function runOne(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(dir, file)], { stdio: 'inherit' });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const started = performance.now();
  const code = await runOne(file);
  console.log(`=== ${file}: ${code === 0 ? 'done' : `exit code ${code}`} in ${((performance.now() - started) / 1000).toFixed(1)} s ===`);
  if (code !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
