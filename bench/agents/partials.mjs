// Bench agent: reads the turn, prints COUNT partials of SIZE bytes of text each, then a result.
// Usage (argv): partials.mjs [COUNT=200000] [SIZE=100]
import { createInterface } from 'node:readline';

const count = Number(process.argv[2] ?? 200_000);
const size = Number(process.argv[3] ?? 100);
const line = JSON.stringify({ type: 'partial', text: 'x'.repeat(size - 1) + '\n' }) + '\n';
const batch = line.repeat(1000);

const rl = createInterface({ input: process.stdin });
rl.once('line', async () => {
  rl.close();
  let left = count;
  while (left > 0) {
    const n = Math.min(1000, left);
    const ok = process.stdout.write(n === 1000 ? batch : line.repeat(n));
    left -= n;
    if (!ok) await new Promise((r) => process.stdout.once('drain', r));
  }
  process.stdout.write(JSON.stringify({ type: 'result', text: 'done' }) + '\n');
});
