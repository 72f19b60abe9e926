// One CLI run for one wire turn: spawn it, report a missing binary with the install hint,
// turn a forwarded stop signal or an exit without a terminal event into an error event, exit.
import { finish } from './agentproc-wire.mjs';
import { spawnCli, stderrTail, signalCliGroup, onTextLines } from './cli-process.mjs';
import { envValue } from './env-knobs.mjs';

/** "exited with code 3" or "was killed by SIGKILL". */
export function howItEnded(code, signal) {
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}

/**
 * Spawns the CLI and returns the child (stdin still open). `name` is its default binary
 * ("claude", from PATH), `binVar` the env knob that overrides it (CLAUDE_BIN); `env` is the
 * CLI's environment (default process.env). `unfinished({ code, signal, stderr })` gives the
 * error message when the CLI ends without a result or error event. `onStderrLine(line)` sees each
 * stderr line (gemini reports its retries only there).
 */
export function runCliTurn(emit, { name, binVar, installHint, args, env = process.env, unfinished, onStderrLine }) {
  const bin = envValue(env, binVar) || name;
  const tail = stderrTail();
  let done = false;
  const { child, signalled } = spawnCli(bin, args, {
    env,
    onNotFound() {
      if (done) return;
      done = true;
      emit.error(bin === name ? `${name} not found: ${installHint}` : `${name} not found at ${bin} (${binVar}): ${installHint}`);
      finish(1);
    },
  });
  process.stdout.on('error', () => signalCliGroup(child, 'SIGTERM'));
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c) => tail.push(c));
  if (onStderrLine) onTextLines(child.stderr, onStderrLine);

  // 'exit' before 'close': something the CLI started still holds its output open; a stop signal
  // still reaches it through the CLI's process group.
  child.on('exit', (code, signal) => {
    if (!done) process.stderr.write(`[wrapper] ${name} ${howItEnded(code, signal)}; waiting for what it started to close its output\n`);
  });
  child.on('close', (code, signal) => {
    if (done) return;
    done = true;
    const sig = signalled();
    if (sig && !emit.terminal) {
      emit.error(`${name} was stopped (${sig})`);
      finish(sig === 'SIGINT' ? 130 : 143);
      return;
    }
    if (emit.terminal === 'result') { finish(0); return; }
    if (emit.terminal === 'error') { finish(1); return; }
    emit.error(unfinished({ code, signal, stderr: tail.text() }));
    finish(1);
  });
  return child;
}
