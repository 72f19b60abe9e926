#!/usr/bin/env node
// AgentProc wire 0.4 wrapper for Gemini CLI (`gemini --output-format stream-json`). No dependencies.
// See README.md beside this file for the flags, the env knobs and what was verified where.
import { openStdin, parseTurn, createEmitter, finish, stderrTail, spawnCli, onJsonLines, envValue, envFlag, splitAttachments, messageWithFiles } from './wire.mjs';
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
  if (turn.sessionId) args.push('--resume', turn.sessionId);
  return args;
}

const env = process.env;
const stdin = openStdin();
const parsed = parseTurn(await stdin.turnLine);
stdin.stop(); // gemini headless mode has no stdio approval channel: nothing more to read
if (!parsed.turn) {
  createEmitter().error(parsed.error);
  finish(1);
} else {
  runTurn(parsed.turn);
}

function runTurn(turn) {
  const emit = createEmitter({ inboundSessionId: turn.sessionId });
  const bin = envValue(env, 'GEMINI_BIN') || 'gemini';
  const args = buildGeminiArgs(turn, env);
  const childEnv = { ...env };
  // Recent versions refuse headless runs in folders not trusted interactively (exit 55), even with --yolo.
  if (envFlag(env, 'GEMINI_TRUST_WORKSPACE', true) && childEnv.GEMINI_CLI_TRUST_WORKSPACE === undefined) childEnv.GEMINI_CLI_TRUST_WORKSPACE = 'true';
  const tail = stderrTail();
  let done = false;
  const { child, signalled } = spawnCli(bin, args, {
    env: childEnv,
    onNotFound() {
      if (done) return;
      done = true;
      emit.error(bin === 'gemini' ? `gemini not found: ${INSTALL_HINT}` : `gemini not found at ${bin} (GEMINI_BIN): ${INSTALL_HINT}`);
      finish(1);
    },
  });
  process.stdout.on('error', () => { try { child.kill('SIGTERM'); } catch { /* gone */ } });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => tail.push(c));
  // Gemini has no image flag: attachments are listed as paths for its file tools.
  const { images, others } = splitAttachments(turn.attachments);
  child.stdin.end(messageWithFiles(turn.message, [...images.map((i) => i.path), ...others]));

  const translator = createGeminiTranslator(emit, { cwd: process.cwd() });
  onJsonLines(child.stdout, (ev) => { translator.handle(ev); });

  child.on('close', (code, signal) => {
    if (done) return;
    done = true;
    const sig = signalled();
    if (sig && !emit.terminal) {
      emit.error(`gemini was stopped (${sig})`);
      finish(sig === 'SIGINT' ? 130 : 143);
      return;
    }
    if (emit.terminal === 'result') { finish(0); return; }
    if (emit.terminal === 'error') { finish(1); return; }
    const detail = tail.text();
    let message;
    if (ARGV_REJECTED.test(detail)) {
      const flags = args.filter((a) => a.startsWith('--') && a !== '--output-format').join(' ');
      message = `gemini rejected its command line (${detail.split('\n').slice(-2).join(' ')}). This gemini version may not support ${flags}: check GEMINI_APPROVAL_MODE or upgrade (npm i -g @google/gemini-cli)`;
    } else if (UNTRUSTED.test(detail) || code === 55) {
      message = 'gemini refused to run in an untrusted folder: keep GEMINI_TRUST_WORKSPACE on (default) or trust the folder in interactive gemini';
    } else {
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const why = translator.lastError || detail;
      message = `gemini ${how} without a result${why ? `: ${why}` : ''}`;
    }
    emit.error(message);
    finish(1);
  });
}
