#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for OpenAI Codex (`codex exec --json`). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { openStdin, parseTurn, createEmitter, finish, stderrTail, spawnCli, onJsonLines, envValue, envFlag, splitAttachments, messageWithFiles } from './wire.mjs';
import { createCodexTranslator } from './codex-events.mjs';

const INSTALL_HINT = 'install with npm i -g @openai/codex';
const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];

/** A chat coding agent that cannot edit is of little use: workspace-write unless configured. */
const sandboxMode = (env) => envValue(env, 'CODEX_SANDBOX') || 'workspace-write';

/**
 * argv after the binary. The prompt is read from stdin ("-"), so a message starting with "-" is
 * never a flag and codex never waits on an open stdin. Exec flags go before `resume`.
 */
function buildCodexArgs(turn, env, images) {
  const args = ['exec', '--json'];
  if (envFlag(env, 'CODEX_SKIP_GIT_CHECK', true)) args.push('--skip-git-repo-check');
  if (envFlag(env, 'CODEX_BYPASS_SANDBOX', false)) args.push('--dangerously-bypass-approvals-and-sandbox');
  else args.push('--sandbox', sandboxMode(env));
  const model = envValue(env, 'CODEX_MODEL');
  if (model) args.push('--model', model);
  const profile = envValue(env, 'CODEX_PROFILE');
  if (profile) args.push('--profile', profile);
  for (const img of images) args.push('--image', img.path);
  if (turn.sessionId) args.push('resume', turn.sessionId);
  args.push('-');
  return args;
}

const env = process.env;
const stdin = openStdin();
const parsed = parseTurn(await stdin.turnLine);
stdin.stop(); // codex exec has no stdio approval channel: nothing more to read
if (!parsed.turn) {
  createEmitter().error(parsed.error);
  finish(1);
} else {
  runTurn(parsed.turn);
}

function runTurn(turn) {
  const emit = createEmitter({ inboundSessionId: turn.sessionId });
  const sandbox = sandboxMode(env);
  if (!SANDBOXES.includes(sandbox)) {
    emit.error(`CODEX_SANDBOX=${sandbox} is not a codex sandbox mode (expected ${SANDBOXES.join(', ')})`);
    finish(1);
    return;
  }
  const { images, others } = splitAttachments(turn.attachments);
  const bin = envValue(env, 'CODEX_BIN') || 'codex';
  const tail = stderrTail();
  let done = false;
  const { child, signalled } = spawnCli(bin, buildCodexArgs(turn, env, images), {
    onNotFound() {
      if (done) return;
      done = true;
      emit.error(bin === 'codex' ? `codex not found: ${INSTALL_HINT}` : `codex not found at ${bin} (CODEX_BIN): ${INSTALL_HINT}`);
      finish(1);
    },
  });
  process.stdout.on('error', () => { try { child.kill('SIGTERM'); } catch { /* gone */ } });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => tail.push(c));
  child.stdin.end(messageWithFiles(turn.message, others, images.length ? 'Please look at the attached image(s).' : undefined));

  const translator = createCodexTranslator(emit, { cwd: process.cwd() });
  onJsonLines(child.stdout, (ev) => { translator.handle(ev); });

  child.on('close', (code, signal) => {
    if (done) return;
    done = true;
    const sig = signalled();
    if (sig && !emit.terminal) {
      emit.error(`codex was stopped (${sig})`);
      finish(sig === 'SIGINT' ? 130 : 143);
      return;
    }
    if (emit.terminal === 'result') { finish(0); return; }
    if (emit.terminal === 'error') { finish(1); return; }
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const detail = translator.lastError || tail.text();
    emit.error(`codex ${how} without finishing the turn${detail ? `: ${detail}` : ''}`);
    finish(1);
  });
}
