#!/usr/bin/env node
// The smallest useful AgentProc 0.4 agent: read the turn line, answer with one result event.
// Dependency-free; run it by hand with:
//   echo '{"type":"turn","message":"hi","session_id":"","protocol_version":"0.4"}' | node agent.mjs
import { createInterface } from 'node:readline';

const rl = createInterface({ input: process.stdin });
let answered = false;

function answer(message) {
  if (answered) return;
  answered = true;
  process.stdout.write(JSON.stringify({ type: 'result', text: `You said: ${message}` }) + '\n');
  rl.close();
}

rl.once('line', (line) => {
  let turn = {};
  try { turn = JSON.parse(line); } catch { /* not JSON: treat as an empty turn */ }
  answer(typeof turn.message === 'string' ? turn.message : '');
});
rl.once('close', () => answer(''));
