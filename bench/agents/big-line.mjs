// Bench agent: reads the turn, prints one result event whose line is MIB mebibytes long.
// Usage (argv): big-line.mjs [MIB=64]
import { createInterface } from 'node:readline';

const total = Number(process.argv[2] ?? 64) * 1024 * 1024;
const head = '{"type":"result","text":"';
const tail = '"}\n';
const chunk = 'y'.repeat(1024 * 1024);

const rl = createInterface({ input: process.stdin });
rl.once('line', async () => {
  rl.close();
  const write = (s) => (process.stdout.write(s) ? undefined : new Promise((r) => process.stdout.once('drain', r)));
  await write(head);
  let left = total - head.length - tail.length;
  while (left > 0) {
    const piece = left >= chunk.length ? chunk : chunk.slice(0, left);
    left -= piece.length;
    await write(piece);
  }
  await write(tail);
});
