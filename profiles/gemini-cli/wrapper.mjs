#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for Gemini CLI (`gemini --output-format stream-json`). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { serveTurn } from '../lib/agentproc-wire.mjs';
import { onJsonLines } from '../lib/cli-process.mjs';
import { runCliTurn, howItEnded } from '../lib/cli-turn.mjs';
import { envValue, envFlag } from '../lib/env-knobs.mjs';
import { splitAttachments, messageWithFiles } from '../lib/turn-attachments.mjs';
import { createGeminiTranslator } from './gemini-events.mjs';

const INSTALL_HINT = 'install with npm i -g @google/gemini-cli';
const ARGV_REJECTED = /Unknown argument|Unknown arguments|Invalid values|Not enough arguments|unknown option/i;
const UNTRUSTED = /not running in a trusted directory/i;

/**
 * argv after the binary. The prompt goes on stdin (headless mode when stdin is not a TTY), so
 * a message starting with "-" is never a flag.
 */
function buildGeminiArgs(turn, env) {
  const args = ['--output-format', 'stream-json'];
  const mode = envValue(env, 'GEMINI_APPROVAL_MODE');
  if (mode) args.push('--approval-mode', mode);
  else args.push('--yolo');
  if (envFlag(env, 'GEMINI_SANDBOX', false)) args.push('--sandbox');
  const model = envValue(env, 'GEMINI_MODEL');
  if (model) args.push('--model', model);
  if (turn.sessionId) args.push(`--resume=${turn.sessionId}`); // one token: never read as an option
  return args;
}

const env = process.env;
// gemini headless mode has no stdio approval channel: nothing more to read after the turn.
await serveTurn(runTurn);

function runTurn(turn, emit) {
  const args = buildGeminiArgs(turn, env);
  const childEnv = { ...env };
  // Recent versions refuse headless runs in folders not trusted interactively (exit 55), even with --yolo.
  if (envFlag(env, 'GEMINI_TRUST_WORKSPACE', true) && childEnv.GEMINI_CLI_TRUST_WORKSPACE === undefined) childEnv.GEMINI_CLI_TRUST_WORKSPACE = 'true';
  const translator = createGeminiTranslator(emit, { cwd: process.cwd() });
  const child = runCliTurn(emit, {
    name: 'gemini',
    binVar: 'GEMINI_BIN',
    installHint: INSTALL_HINT,
    args,
    env: childEnv,
    unfinished: ({ code, signal, stderr }) => {
      if (ARGV_REJECTED.test(stderr)) {
        const flags = args.filter((a) => a.startsWith('--') && a !== '--output-format').join(' ');
        return `gemini rejected its command line (${stderr.split('\n').slice(-2).join(' ')}). This gemini version may not support ${flags}: check GEMINI_APPROVAL_MODE or upgrade (npm i -g @google/gemini-cli)`;
      }
      if (UNTRUSTED.test(stderr) || code === 55) {
        return 'gemini refused to run in an untrusted folder: keep GEMINI_TRUST_WORKSPACE on (default) or trust the folder in interactive gemini';
      }
      const why = translator.lastError || stderr;
      return `gemini ${howItEnded(code, signal)} without a result${why ? `: ${why}` : ''}`;
    },
  });
  // Gemini has no image flag: attachments are listed as paths for its file tools.
  const { images, others } = splitAttachments(turn.attachments);
  child.stdin.end(messageWithFiles(turn.message, [...images.map((i) => i.path), ...others]));
  onJsonLines(child.stdout, (ev) => { translator.handle(ev); });
}
