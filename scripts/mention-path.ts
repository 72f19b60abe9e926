/**
 * Counts the src/ files one Slack mention runs through, from the event to the final edit (issue 24's
 * "walk"): the fake Slack, the real Bolt app and the real bridge run in this process under V8's
 * precise coverage (NODE_V8_COVERAGE); the counters are reset once the platform is connected, one
 * mention is sent, and when its reply is final the files whose functions ran are listed. Modules
 * loaded at start-up and never called during the turn do not count; the agent is a child process
 * and is not counted.
 *
 *   node scripts/mention-path.mjs [--streaming auto|edit] [--list | --why] [--warm]
 *
 * --why names, for each file, the functions that ran in it (anonymous ones as such); --warm sends
 * another mention first, so what only the first turn after start-up does is not counted.
 *
 * (the wrapper re-runs this file under tsx with NODE_V8_COVERAGE set)
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { takeCoverage } from 'node:v8';
import { BOT_USER } from '../test/fakes/slack/index.js';
import { makeTurnRig } from '../test/e2e/slack/turn-rig.js';

const dir = process.env.NODE_V8_COVERAGE;
if (!dir) throw new Error('run through scripts/mention-path.mjs (NODE_V8_COVERAGE is not set)');
const args = process.argv.slice(2);
const streaming = args.includes('--streaming') ? args[args.indexOf('--streaming') + 1]! : 'auto';
const SRC = fileURLToPath(new URL('../src/', import.meta.url));

interface Fn { functionName: string; ranges: Array<{ count: number }> }
interface Script { url: string; functions: Fn[] }

/** The src/ files of this process's newest coverage dump with a function that ran, each with the names of those functions. */
function ranFiles(): Map<string, string[]> {
  const mine = readdirSync(dir!).filter((f) => f.startsWith(`coverage-${process.pid}-`)).sort();
  const latest = mine.map((f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')) as { result: Script[] }).at(-1)!;
  const out = new Map<string, string[]>();
  for (const s of latest.result) {
    if (!s.url.startsWith('file://')) continue;
    const path = fileURLToPath(s.url);
    if (!path.startsWith(SRC)) continue;
    const ran = s.functions.filter((f) => f.ranges[0]!.count > 0);
    if (ran.length) out.set(relative(SRC, path), ran.map((f) => f.functionName || '(anonymous)'));
  }
  return out;
}

const rig = await makeTurnRig({ slack: { streaming } });
try {
  if (args.includes('--warm')) {
    const w = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0BEN', text: `<@${BOT_USER}> stream 4 10` });
    await rig.finalReply('C0GEN', w.ts, w.ts);
  }
  takeCoverage(); // start-up is behind us: the counters start from zero here
  rmSync(dir, { recursive: true, force: true });
  const { ts } = await rig.fake.userMessage({ channel: 'C0GEN', user: 'U0ANA', text: `<@${BOT_USER}> stream 4 10` });
  await rig.finalReply('C0GEN', ts, ts);
  takeCoverage();
  const ran = ranFiles();
  const files = [...ran.keys()].sort();
  const lines = files.reduce((n, f) => n + readFileSync(SRC + f, 'utf8').split('\n').length - 1, 0);
  if (args.includes('--list')) for (const f of files) console.log(f);
  if (args.includes('--why')) for (const f of files) console.log(`${f}: ${[...new Set(ran.get(f))].join(', ')}`);
  const folders = new Map<string, number>();
  for (const f of files) { const d = f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '.'; folders.set(d, (folders.get(d) ?? 0) + 1); }
  console.log(`streaming=${streaming}: ${files.length} src files, ${lines} lines, ${folders.size} folders`);
} finally {
  await rig.close();
}
