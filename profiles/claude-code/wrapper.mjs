#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for Claude Code (`claude -p`, stream-json in and out). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { serveTurn } from '../lib/agentproc-wire.mjs';
import { onJsonLines } from '../lib/cli-process.mjs';
import { runCliTurn, howItEnded } from '../lib/cli-turn.mjs';
import { buildClaudeArgs, buildUserMessage, claudeEnv, rootRefusalHint } from './claude-input.mjs';
import { createClaudeTranslator, describeTool } from './claude-events.mjs';

const INSTALL_HINT = 'install with npm i -g @anthropic-ai/claude-code';
const SAFE_ID = /^[^\s\u0000-\u001f\u007f]+$/;
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

  // Permission channel: control_request can_use_tool <-> permission_request / permission_response.
  const pending = new Map();
  let seq = 0;
  const answer = (wireId, resp) => {
    const p = pending.get(wireId);
    if (!p) return false;
    pending.delete(wireId);
    const allow = resp.behavior === 'allow';
    const decision = allow
      ? { behavior: 'allow', updatedInput: isObject(resp.updated_input) ? resp.updated_input : p.input }
      : { behavior: 'deny', message: typeof resp.message === 'string' && resp.message ? resp.message : 'The user denied this action.' };
    toClaude({ type: 'control_response', response: { subtype: 'success', request_id: p.claudeId, response: decision } });
    return true;
  };

  function onControlRequest(ev) {
    const req = isObject(ev.request) ? ev.request : {};
    const claudeId = ev.request_id;
    if (req.subtype !== 'can_use_tool') {
      toClaude({ type: 'control_response', response: { subtype: 'error', request_id: claudeId, error: `unsupported control request: ${req.subtype}` } });
      return;
    }
    const wireId = typeof claudeId === 'string' && SAFE_ID.test(claudeId) && !pending.has(claudeId) ? claudeId : `perm-${++seq}`;
    const input = isObject(req.input) ? req.input : {};
    pending.set(wireId, { claudeId, input });
    if (!turn.permission) {
      answer(wireId, { behavior: 'deny', message: 'No approver: this turn runs without a permission channel.' });
      return;
    }
    const toolName = String(req.tool_name ?? req.display_name ?? 'tool');
    const request = { request_id: wireId, tool_name: toolName, input };
    request.description = typeof req.description === 'string' && req.description ? req.description : describeTool(toolName, input);
    if (typeof req.tool_use_id === 'string' && req.tool_use_id) request.tool_use_id = req.tool_use_id;
    emit.permissionRequest(request);
  }

  if (turn.permission) {
    stdin.onLine((line) => {
      let msg;
      try { msg = JSON.parse(line); } catch { process.stderr.write('[wrapper] ignored a stdin line that is not JSON\n'); return; }
      if (!isObject(msg) || msg.type !== 'permission_response') return;
      if (!answer(String(msg.request_id ?? ''), msg)) process.stderr.write(`[wrapper] permission_response for unknown request ${msg.request_id}\n`);
    });
    stdin.onEnd(() => {
      for (const id of [...pending.keys()]) answer(id, { behavior: 'deny', message: 'No permission response: the bridge closed stdin.' });
    });
  }

  const translator = createClaudeTranslator(emit, { cwd: process.cwd() });
  onJsonLines(child.stdout, (ev) => {
    if (ev.type === 'control_request') { onControlRequest(ev); return; }
    if (ev.type === 'control_cancel_request') {
      for (const [id, p] of pending) if (p.claudeId === ev.request_id) pending.delete(id);
      return;
    }
    if (ev.type === 'control_response') return;
    // With stream-json input the CLI exits only when its stdin closes: close it after the result.
    if (translator.handle(ev)) child.stdin.end();
  });
}
