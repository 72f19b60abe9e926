#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for OpenAI Codex (`codex exec --json`). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { serveTurn, finish } from '../lib/agentproc-wire.mjs';
import { onJsonLines } from '../lib/cli-process.mjs';
import { runCliTurn, howItEnded } from '../lib/cli-turn.mjs';
import { envValue, envFlag } from '../lib/env-knobs.mjs';
import { splitAttachments, messageWithFiles } from '../lib/turn-attachments.mjs';
import { createCodexTranslator } from './codex-events.mjs';

const INSTALL_HINT = 'install with npm i -g @openai/codex';
const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];

/** A chat coding agent that cannot edit is of little use: workspace-write unless configured. */
// In turnbridge's agent box (TURNBRIDGE_AGENT_BOX) codex's own sandbox cannot start (it nests
// bubblewrap namespaces, which the box forbids): the box is the sandbox there.
const sandboxMode = (env) => envValue(env, 'CODEX_SANDBOX') || (env.TURNBRIDGE_AGENT_BOX ? 'danger-full-access' : 'workspace-write');

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
  // codex ignores OPENAI_BASE_URL; its built-in provider takes openai_base_url (a TOML string).
  const baseUrl = envValue(env, 'CODEX_BASE_URL');
  if (baseUrl) args.push('-c', `openai_base_url=${JSON.stringify(baseUrl)}`);
  // codex 0.169's exec leaves its update_plan tool off: on, the chat shows codex's plan live (the task line).
  if (envFlag(env, 'CODEX_PLAN_TOOL', true)) args.push('-c', 'tools.update_plan.enabled=true');
  for (const img of images) args.push('--image', img.path);
  // After `--` the id and the prompt `-` are positionals, never options.
  if (turn.sessionId) args.push('resume', '--', turn.sessionId, '-');
  else args.push('-');
  return args;
}

/** codex exec reads its API key from CODEX_API_KEY only: OPENAI_API_KEY is passed on under that name. */
function codexEnv(env) {
  const key = envValue(env, 'OPENAI_API_KEY');
  return !envValue(env, 'CODEX_API_KEY') && key ? { ...env, CODEX_API_KEY: key } : env;
}

const env = process.env;
// codex exec has no stdio approval channel: nothing more to read after the turn.
await serveTurn(runTurn);

function runTurn(turn, emit) {
  const sandbox = sandboxMode(env);
  if (!SANDBOXES.includes(sandbox)) {
    emit.error(`CODEX_SANDBOX=${sandbox} is not a codex sandbox mode (expected ${SANDBOXES.join(', ')})`);
    finish(1);
    return;
  }
  const { images, others } = splitAttachments(turn.attachments);
  const translator = createCodexTranslator(emit, { cwd: process.cwd() });
  const child = runCliTurn(emit, {
    name: 'codex',
    binVar: 'CODEX_BIN',
    installHint: INSTALL_HINT,
    args: buildCodexArgs(turn, env, images),
    env: codexEnv(env),
    unfinished: ({ code, signal, stderr }) => {
      const detail = translator.lastError || stderr;
      return `codex ${howItEnded(code, signal)} without finishing the turn${detail ? `: ${detail}` : ''}`;
    },
  });
  child.stdin.end(messageWithFiles(turn.message, others, images.length ? 'Please look at the attached image(s).' : undefined));
  onJsonLines(child.stdout, (ev) => { translator.handle(ev); });
}
