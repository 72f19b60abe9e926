#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for Gemini CLI (`gemini --output-format stream-json`). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { serveTurn } from '../lib/agentproc-wire.mjs';
import { onJsonLines, signalCliGroup } from '../lib/cli-process.mjs';
import { runCliTurn, howItEnded } from '../lib/cli-turn.mjs';
import { envValue, envFlag } from '../lib/env-knobs.mjs';
import { splitAttachments, messageWithFiles } from '../lib/turn-attachments.mjs';
import { createGeminiTranslator } from './gemini-events.mjs';
import { systemDefaultsFor } from './system-defaults.mjs';
import { createRetryWatch, sideRequestError } from './gemini-retries.mjs';

const INSTALL_HINT = 'install with npm i -g @google/gemini-cli';
const ARGV_REJECTED = /Unknown argument|Unknown arguments|Invalid values|Not enough arguments|unknown option/i;
const UNTRUSTED = /not running in a trusted directory/i;
const BAD_AUTH = /Invalid auth method selected/i;
const SKIPPED_DEFAULTS = /Skipping system defaults file[^\n]*/;
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

/**
 * gemini's environment. With GOOGLE_GEMINI_BASE_URL gemini 0.61 picks its "gateway" auth type,
 * which headless mode rejects (exit 41, "Invalid auth method selected"): an API key with a base
 * URL selects "gemini-api-key" through the defaults file, unless GEMINI_AUTH_TYPE says otherwise.
 */
function geminiEnv(env) {
  const childEnv = { ...env };
  // Recent versions refuse headless runs in folders not trusted interactively (exit 55), even with --yolo.
  if (envFlag(env, 'GEMINI_TRUST_WORKSPACE', true) && childEnv.GEMINI_CLI_TRUST_WORKSPACE === undefined) childEnv.GEMINI_CLI_TRUST_WORKSPACE = 'true';
  // gemini's lowest-precedence settings layer (the user's ~/.gemini/settings.json still wins):
  // 3 attempts per chat request instead of 10 (a 503 kept a turn silent ~290 s; side requests
  // are held to 3 by gemini-retries.mjs), and the auth type.
  if (!envValue(env, 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH')) {
    const defaults = systemDefaultsFor(env);
    if (defaults) childEnv.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = defaults;
  }
  const gateway = envValue(env, 'GOOGLE_GEMINI_BASE_URL') && envValue(env, 'GEMINI_API_KEY') ? 'gemini-api-key' : '';
  childEnv.TURNBRIDGE_GEMINI_AUTH_TYPE = envValue(env, 'GEMINI_AUTH_TYPE') || gateway;
  return childEnv;
}

function runTurn(turn, emit) {
  const args = buildGeminiArgs(turn, env);
  const childEnv = geminiEnv(env);
  let skippedDefaults = '';
  const translator = createGeminiTranslator(emit, { cwd: process.cwd() });
  const retries = createRetryWatch({
    onRetry: (attempt, status) => translator.retrying(attempt, status),
    // A side request past the bound: say why and stop gemini (its group; SIGKILL if it lingers).
    onSideBound(stop) {
      emit.error(sideRequestError(stop));
      signalCliGroup(child, 'SIGTERM');
      setTimeout(() => signalCliGroup(child, 'SIGKILL'), 3000).unref();
    },
  });
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
      if (BAD_AUTH.test(stderr) || code === 41) {
        const why = skippedDefaults ? ` (${skippedDefaults})` : '';
        return `gemini found no usable auth method: set GEMINI_API_KEY, or security.auth.selectedType in ~/.gemini/settings.json ("gemini-api-key" with GOOGLE_GEMINI_BASE_URL; as root the wrapper selects it, or GEMINI_AUTH_TYPE)${why}`;
      }
      if (UNTRUSTED.test(stderr) || code === 55) {
        return 'gemini refused to run in an untrusted folder: keep GEMINI_TRUST_WORKSPACE on (default) or trust the folder in interactive gemini';
      }
      const why = translator.lastError || stderr;
      return `gemini ${howItEnded(code, signal)} without a result${why ? `: ${why}` : ''}`;
    },
    onStderrLine(l) {
      const skipped = SKIPPED_DEFAULTS.exec(l);
      if (skipped) skippedDefaults = skipped[0];
      retries.line(l);
    },
  });
  // Gemini has no image flag: attachments are listed as paths for its file tools.
  const { images, others } = splitAttachments(turn.attachments);
  child.stdin.end(messageWithFiles(turn.message, [...images.map((i) => i.path), ...others]));
  onJsonLines(child.stdout, (ev) => { translator.handle(ev); });
}
