// The agent CLI as a child process: spawn without a shell, forward stop signals, keep a
// stderr tail, read its stdout as JSON lines. node: built-ins only.
import { spawn } from 'node:child_process';

/** Keeps the last `max` characters of the CLI's stderr for error messages (and forwards it). */
export function stderrTail(max = 4000) {
  let tail = '';
  return {
    push(chunk) {
      process.stderr.write(chunk);
      tail = (tail + chunk).slice(-max);
    },
    text() {
      return tail.trim().split('\n').filter(Boolean).slice(-5).join('\n').slice(-600);
    },
  };
}

/**
 * Spawn the CLI without a shell. `onNotFound` runs instead of 'close' when the binary is missing.
 * SIGTERM/SIGINT/SIGHUP sent to the wrapper are forwarded; the CLI gets SIGKILL after graceMs.
 */
export function spawnCli(bin, args, { stdin = 'pipe', cwd, env = process.env, graceMs = 3000, onNotFound, onSignal } = {}) {
  // An unset ${VAR} in the profile env arrives as "": drop those so the CLI sees them as unset
  // (an empty ANTHROPIC_API_KEY must not hide a `claude login`).
  const childEnv = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const child = spawn(bin, args, { stdio: [stdin, 'pipe', 'pipe'], cwd, env: childEnv, shell: false });
  let signalled = null;
  child.on('error', (e) => {
    if (e && (e.code === 'ENOENT' || e.code === 'EACCES') && child.pid === undefined) onNotFound?.(e);
  });
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(sig, () => {
      if (signalled) return;
      signalled = sig;
      onSignal?.(sig);
      try { child.kill(sig); } catch { /* gone */ }
      setTimeout(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } }, graceMs).unref();
    });
  }
  child.stdin?.on('error', () => {});
  return { child, signalled: () => signalled };
}

/** Reads a child's stdout as lines of JSON; non-JSON lines go to stderr (debug). */
export function onJsonLines(stream, fn) {
  let buf = '';
  stream.setEncoding('utf8');
  const handle = (line) => {
    if (!line.trim()) return;
    let obj;
    try { obj = JSON.parse(line); } catch { process.stderr.write(`[cli stdout] ${line}\n`); return; }
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) fn(obj);
  };
  stream.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); handle(line); }
  });
  stream.on('end', () => { if (buf) handle(buf); buf = ''; });
}
