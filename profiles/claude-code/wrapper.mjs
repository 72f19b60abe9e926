#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for Claude Code (`claude -p`, stream-json in and out). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { serveTurn } from '../lib/agentproc-wire.mjs';
import { onJsonLines } from '../lib/cli-process.mjs';
import { runCliTurn, howItEnded } from '../lib/cli-turn.mjs';
import { buildClaudeArgs, buildUserMessage, claudeEnv, rootRefusalHint } from './claude-input.mjs';
import { createClaudeTranslator } from './claude-events.mjs';
import { createClaudePermissions } from './claude-permission.mjs';

const INSTALL_HINT = 'install with npm i -g @anthropic-ai/claude-code';
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

const env = process.env;
// With a permission channel, later stdin lines are permission responses.
await serveTurn(runTurn, { keepReading: (t) => t.permission });

function runTurn(turn, emit, stdin) {
  const child = runCliTurn(emit, {
    name: 'claude',
    binVar: 'CLAUDE_BIN',
    installHint: INSTALL_HINT,
    args: buildClaudeArgs(turn, env),
    env: claudeEnv(env),
    unfinished: ({ code, signal, stderr }) => `claude ${howItEnded(code, signal)} without a result${stderr ? `: ${stderr}` : ''}${rootRefusalHint(stderr)}`,
  });

  const toClaude = (obj) => {
    if (child.stdin.writable && !child.stdin.destroyed) child.stdin.write(JSON.stringify(obj) + '\n');
  };
  toClaude(buildUserMessage(turn));
  if (!turn.permission) child.stdin.end();

  const translator = createClaudeTranslator(emit, { cwd: process.cwd() });
  // Permission channel: control_request can_use_tool <-> permission_request / permission_response.
  const permissions = createClaudePermissions({ emit, toClaude, permission: turn.permission, planHint: translator.planHint, cwd: process.cwd() });
  if (turn.permission) {
    stdin.onLine((line) => {
      let msg;
      try { msg = JSON.parse(line); } catch { process.stderr.write('[wrapper] ignored a stdin line that is not JSON\n'); return; }
      if (!isObject(msg) || msg.type !== 'permission_response') return;
      if (!permissions.respond(msg)) process.stderr.write(`[wrapper] permission_response for unknown request ${msg.request_id}\n`);
    });
    stdin.onEnd(() => permissions.denyAll('No permission response: the bridge closed stdin.'));
  }

  onJsonLines(child.stdout, (ev) => {
    if (ev.type === 'control_request') { permissions.request(ev); return; }
    if (ev.type === 'control_cancel_request') { permissions.cancel(ev.request_id); return; }
    if (ev.type === 'control_response') return;
    // With stream-json input the CLI exits only when its stdin closes: close it after the result.
    if (translator.handle(ev)) child.stdin.end();
  });
}
