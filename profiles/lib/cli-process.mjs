// The agent CLI as a child process: spawn without a shell in its own process group, forward stop
// signals to that whole group, keep a stderr tail, read its stdout as JSON lines. node: built-ins only.
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

const closed = new WeakSet();

/**
 * Signal the CLI's whole process group. Some CLIs are launchers that ignore SIGTERM and re-spawn
 * the real CLI as their child (gemini does): signalling only the launcher would leave the real CLI
 * running and the wrapper waiting on its pipes.
 */
export function signalCliGroup(child, sig) {
  // Until 'close' (every pipe closed) the group may still have members even when its leader, the
  // CLI, has exited: a tool it started that holds the pipes open is reached only through the group.
  if (child.pid === undefined || closed.has(child)) return;
  try {
    if (process.platform !== 'win32') process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    try { child.kill(sig); } catch { /* gone */ }
  }
}

/**
 * Spawn the CLI without a shell, leading its own process group. `onNotFound` runs instead of
 * 'close' when the binary is missing. SIGTERM/SIGINT/SIGHUP sent to the wrapper are forwarded to
 * the CLI's group, which gets SIGKILL after graceMs (shorter than the profiles' kill_grace_secs,
 * so the group is gone before the bridge kills the wrapper). The group is also killed when the
 * wrapper exits while the CLI still runs: being in its own group, nothing else would reach it.
 */
export function spawnCli(bin, args, { stdin = 'pipe', cwd, env = process.env, graceMs = 3000, onNotFound, onSignal } = {}) {
  // An unset ${VAR} in the profile env arrives as "": drop those so the CLI sees them as unset
  // (an empty ANTHROPIC_API_KEY must not hide a `claude login`).
  const childEnv = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const child = spawn(bin, args, { stdio: [stdin, 'pipe', 'pipe'], cwd, env: childEnv, shell: false, detached: process.platform !== 'win32' });
  let signalled = null;
  child.on('error', (e) => {
    if (e && (e.code === 'ENOENT' || e.code === 'EACCES') && child.pid === undefined) onNotFound?.(e);
  });
  child.on('close', () => closed.add(child));
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(sig, () => {
      if (signalled) return;
      signalled = sig;
      onSignal?.(sig);
      signalCliGroup(child, sig);
      setTimeout(() => signalCliGroup(child, 'SIGKILL'), graceMs).unref();
    });
  }
  process.on('exit', () => signalCliGroup(child, 'SIGKILL'));
  child.stdin?.on('error', () => {});
  return { child, signalled: () => signalled };
}

/** Reads a child's stdout as lines of JSON; non-JSON lines go to stderr (debug). */
export function onJsonLines(stream, fn) {
  stream.setEncoding('utf8');
  onTextLines(stream, (line) => {
    if (!line.trim()) return;
    let obj;
    try { obj = JSON.parse(line); } catch { process.stderr.write(`[cli stdout] ${line}\n`); return; }
    if (obj && typeof obj === 'object' && !Array.isArray(obj)) fn(obj);
  });
}

/** Calls fn for each complete line of a text stream whose encoding is set (the last one at its end). */
export function onTextLines(stream, fn) {
  let buf = '';
  stream.on('data', (chunk) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); fn(line); }
  });
  stream.on('end', () => { if (buf) fn(buf); buf = ''; });
}
