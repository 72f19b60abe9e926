import { spawn, type ChildProcess } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { isTurnbridgeError } from '../errors.js';
import { buildTurn, permissionResponseLine, resumableSessionIdProblem, turnHasContent } from '../protocol/turn.js';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import { resolveLaunch } from '../profile/launch.js';
import { checkAgentCwd, handOverAttachments } from './launch-policy.js';
import { placeTurn, watchBoxInit } from './sandbox/index.js';
import type { LaunchSpec, Profile } from '../profile/types.js';
import { LineSplitter } from './line-splitter.js';
import { signalGroup } from './process-group.js';
import { StderrTail } from './stderr-tail.js';
import { TurnState } from './turn-state.js';
import { createDeadline, type Deadline } from './turn-clock.js';
import type { RunHandlers, RunLogger, RunOptions, RunResult, TurnInput } from './types.js';
import { processEnv } from '../config/bridge-env.js';

/** No logger given: log nothing (and load no logging library). */
const QUIET: RunLogger = { debug() {}, info() {}, warn() {} };

export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;
/** After the agent exits, how long a grandchild may keep stdout open before the group is killed. */
const EXIT_DRAIN_MS = 500;

type StopWhy = 'timeout' | 'cancel';
/** SIGTERM went to the group for `why`; `kill` sends SIGKILL after the grace. */
interface Stopping { why: StopWhy; kill: NodeJS.Timeout }
/** How the process ended: its exit, or the spawn failure that means it never ran. */
type Exit = { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null } | { kind: 'spawn-failed'; error: NodeJS.ErrnoException };
/** The agent process's life in one turn (the transitions are in run()). */
type Life =
  | { kind: 'running'; deadline: Deadline; stdout: 'open' | 'ended'; stop?: Stopping }
  | { kind: 'draining'; exit: Exit; drain: NodeJS.Timeout; stop?: Stopping }
  | { kind: 'settled'; exit: Exit; stop?: Stopping };

function failedBeforeSpawn(error: string, started: number): RunResult {
  return { reply: '', sessionId: '', error, exitCode: 1, timedOut: false, cancelled: false, partials: [], notices: [], durationMs: Date.now() - started };
}

function formatMiB(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}

/**
 * Run one agent turn per AgentProc wire 0.4. Resolves a RunResult for every outcome; never rejects
 * for anything the agent does (crash, hang, garbage, EPIPE, huge output).
 */
export async function run(profile: Profile, turn: TurnInput, handlers: RunHandlers = {}, options: RunOptions = {}): Promise<RunResult> {
  const started = Date.now();
  const log = options.logger ?? QUIET;
  const where = profile.file ? ` (profile ${profile.file})` : '';

  if (!turnHasContent(turn)) return failedBeforeSpawn('Nothing to send: the message is empty and has no attachments.', started);
  if (options.signal?.aborted) return { ...failedBeforeSpawn('The turn was stopped before it started.', started), cancelled: true, exitCode: 130 };

  if (turn.sessionId) {
    const problem = resumableSessionIdProblem(turn.sessionId);
    if (problem) {
      log.warn({ problem }, 'session id refused; starting a new session');
      turn = { ...turn, sessionId: undefined };
    }
  }
  let launch: LaunchSpec;
  try {
    launch = resolveLaunch(profile, { sessionId: turn.sessionId ?? '', sessionName: turn.sessionName || 'default' }, options.env ?? processEnv(), options.dirs?.workspace ?? options.launch?.defaultCwd);
    // The profile's own env.HOME wins, as its cwd does.
    if (options.dirs?.home && profile.env.HOME === undefined) launch = { ...launch, env: { ...launch.env, HOME: options.dirs.home } };
    // The bridge's own per-run extra (the protocol's child environment, layer 3): where files for the chat go.
    if (options.dirs?.outbox) launch = { ...launch, env: { ...launch.env, TURNBRIDGE_OUTBOX: options.dirs.outbox } };
    if (options.launch) checkAgentCwd(launch.cwd, options.launch, profile);
  } catch (e) {
    if (isTurnbridgeError(e)) return failedBeforeSpawn(e.message, started);
    throw e;
  }
  for (const w of launch.warnings) log.warn(w);

  const timeoutMs = options.timeoutMs ?? profile.timeoutSecs * 1000;
  const graceMs = options.killGraceMs ?? profile.killGraceSecs * 1000;
  const state = new TurnState({
    streaming: profile.streaming,
    maxReplyBytes: options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES,
    logger: log,
    onPartial: handlers.onPartial,
    onSessionId: handlers.onSessionId,
    onOutputEnd: handlers.onOutputEnd,
  });
  const stderr = new StderrTail(options.stderrTailBytes ?? 8192);

  const policy = options.launch;
  const place = await placeTurn(launch, profile, turn, options);
  if ('error' in place) return failedBeforeSpawn(place.error, started);
  launch = place.launch;
  for (const w of place.warnings) log.warn(w);
  const exec = { command: place.command, args: place.args };
  const egress = place.egress;
  // Files the bridge put in the conversation's HOME are readable by the agent already (and a
  // chown through the agent's own directory could be led elsewhere by a link it planted).
  if (policy?.runAs && !options.dirs?.home) handOverAttachments((turn.attachments ?? []).map((a) => a.url), policy.runAs);
  let child: ChildProcess;
  try {
    child = spawn(exec.command, exec.args, {
      cwd: launch.cwd,
      env: launch.env,
      ...(policy?.runAs ? { uid: policy.runAs.uid, gid: policy.runAs.gid } : {}),
      stdio: place.boxed ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      shell: false,
      windowsHide: true,
    });
  } catch (e) {
    void egress?.close();
    return failedBeforeSpawn(`Cannot start the agent "${launch.command}"${where}: ${(e as Error).message}`, started);
  }

  const boxInit = place.boxed ? watchBoxInit(child) : () => undefined;

  return new Promise<RunResult>((resolveRun) => {
    const turnEnded = new AbortController();
    const pending = new Map<string, AbortController>();

    const stdinWritable = () => child.stdin !== null && !child.stdin.destroyed && child.stdin.writable && !child.stdin.writableEnded;
    const writeStdin = (line: string) => {
      if (!stdinWritable()) return false;
      child.stdin!.write(line);
      return true;
    };
    // EPIPE / early exit while writing must never crash the bridge.
    child.stdin?.on('error', (e) => log.debug({ err: e.message }, 'agent stdin closed early'));

    const respond = (requestId: string, decision: PermissionDecision) => {
      const ctl = pending.get(requestId);
      if (ctl === undefined) return;
      pending.delete(requestId);
      ctl.abort();
      if (!writeStdin(permissionResponseLine(requestId, decision))) log.debug({ requestId }, 'permission response not written: stdin closed');
    };

    const onPermissionRequest = (request: PermissionRequest) => {
      if (!profile.permission) {
        log.warn({ tool: request.toolName }, 'permission_request ignored: the profile has permission false');
        return;
      }
      if (pending.has(request.requestId)) {
        log.warn({ requestId: request.requestId }, 'duplicate permission request_id ignored');
        return;
      }
      const ctl = new AbortController();
      pending.set(request.requestId, ctl);
      if (!handlers.onPermissionRequest) {
        respond(request.requestId, { behavior: 'deny', message: 'No approver is available for this turn.' });
        return;
      }
      const signal = AbortSignal.any([ctl.signal, turnEnded.signal]);
      // A person asked (a question, a plan) may hold the turn's clock while they answer.
      const holdClock = (): (() => void) => (life.kind === 'running' ? life.deadline.hold() : () => {});
      handlers.onPermissionRequest(request, { signal, cwd: launch.cwd, holdClock }).then(
        (decision) => respond(request.requestId, decision),
        (e: unknown) => {
          log.warn({ err: (e as Error)?.message }, 'permission handler failed; denying');
          respond(request.requestId, { behavior: 'deny', message: 'The approval could not be obtained.' });
        },
      );
    };

    const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, {
      onLine: (text, start, end) => {
        const e = state.line(text, start, end);
        if (e === undefined) return; // a blank line, or a partial of the dominant shape: nothing more to do
        if (state.failed && pending.size > 0) denyAllPending('The turn failed.');
        if (e.type === 'permission_request' && !state.failed) onPermissionRequest(e.request);
        else if (e.type === 'bad_permission_request' && profile.permission) {
          log.warn({ reason: e.reason }, 'malformed permission_request');
          if (e.requestId !== undefined) writeStdin(permissionResponseLine(e.requestId, { behavior: 'deny', message: `Malformed permission request: ${e.reason}` }));
        }
      },
      skipIgnored: (text, start) => state.skipIgnored(text, start),
      onOversized: (bytes) => {
        log.warn({ bytes }, 'oversized agent output line dropped');
        state.notices.push(`An oversized event from the agent (${formatMiB(bytes)}) was dropped.`);
      },
    });

    function denyAllPending(message: string) {
      for (const id of [...pending.keys()]) respond(id, { behavior: 'deny', message });
    }

    /**
     * The agent's life as ONE value, changed only below (stop, exited, outputEnded, drained,
     * settle); its timers live in the state that arms them:
     * - running: the turn's `deadline` armed (or held while a person answers); `stdout` open or ended; `stop` once a Stop or the
     *   timeout sent SIGTERM (its `kill` timer sends SIGKILL after the grace);
     * - draining: the process exited but a grandchild holds stdout open; `drain` ends the turn anyway;
     * - settled: exit seen and stdout ended (or given up on): the result is out.
     */
    let life: Life = { kind: 'running', deadline: createDeadline(timeoutMs, () => stop('timeout')), stdout: 'open' };

    /** Timeout or Stop: SIGTERM to the group (a boxed turn: SIGKILL to its box), SIGKILL after the grace. Once only, while the process runs. */
    const stop = (why: StopWhy) => {
      if (life.kind !== 'running' || life.stop) return;
      denyAllPending(why === 'timeout' ? 'The turn timed out waiting for approval.' : 'The turn was stopped.');
      const init = boxInit();
      if (init !== undefined) {
        // bwrap would not pass SIGTERM on and would end before its box: end the box itself (sandbox/turn-box.ts).
        log.info({ why, pid: child.pid, boxInit: init }, 'stopping agent: SIGKILL to its box');
        try { process.kill(init, 'SIGKILL'); } catch { signalGroup(child, 'SIGKILL'); }
      } else {
        log.info({ why, pid: child.pid }, 'stopping agent: SIGTERM to its process group');
        signalGroup(child, 'SIGTERM');
      }
      const kill = setTimeout(() => {
        log.warn({ pid: child.pid }, 'agent still running after grace: SIGKILL');
        signalGroup(child, 'SIGKILL');
      }, graceMs);
      life = { ...life, stop: { why, kill } };
    };

    /** The process exited, or never started: the turn ends once stdout has ended too. */
    const exited = (exit: Exit) => {
      if (life.kind !== 'running') return;
      life.deadline.clear();
      if (exit.kind === 'spawn-failed' || life.stdout === 'ended') {
        settle({ kind: 'settled', exit, stop: life.stop });
        return;
      }
      // A grandchild may hold stdout open: give it a moment, then end the turn anyway.
      life = { kind: 'draining', exit, stop: life.stop, drain: setTimeout(drained, EXIT_DRAIN_MS) };
    };

    const outputEnded = () => {
      if (life.kind === 'running') life = { ...life, stdout: 'ended' };
      else if (life.kind === 'draining') {
        clearTimeout(life.drain);
        settle({ kind: 'settled', exit: life.exit, stop: life.stop });
      }
    };

    const drained = () => {
      if (life.kind !== 'draining') return;
      log.warn('agent exited but its stdout stayed open (a child process?); ending the turn');
      signalGroup(child, 'SIGKILL');
      child.stdout?.destroy();
      splitter.end();
      settle({ kind: 'settled', exit: life.exit, stop: life.stop });
    };

    const onAbort = () => stop('cancel');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (chunk: Buffer) => splitter.push(chunk));
    child.stdout!.on('end', () => {
      splitter.end();
      outputEnded();
    });
    child.stdout!.on('error', () => undefined);
    child.stderr!.on('data', (chunk: Buffer) => {
      const s = stderr.push(chunk);
      handlers.onStderr?.(s);
    });
    child.stderr!.on('error', () => undefined);

    child.on('spawn', () => {
      if (child.pid !== undefined) handlers.onSpawn?.(child.pid);
      log.debug({ pid: child.pid, command: launch.command }, 'agent started');
    });
    // Spawn failures (ENOENT, EACCES) arrive as 'error', with no exit event.
    child.on('error', (error: NodeJS.ErrnoException) => exited({ kind: 'spawn-failed', error }));
    child.on('exit', (code, signal) => exited({ kind: 'exited', code, signal }));

    const turnLine = JSON.stringify(buildTurn({ ...turn, permission: profile.permission })) + '\n';
    if (child.stdin) {
      child.stdin.write(turnLine);
      if (!profile.permission) child.stdin.end();
    }

    function settle(final: Extract<Life, { kind: 'settled' }>) {
      if (life.kind === 'settled') return;
      if (life.stop) clearTimeout(life.stop.kill);
      life = final;
      options.signal?.removeEventListener('abort', onAbort);
      turnEnded.abort();
      pending.clear();
      if (child.stdin && !child.stdin.destroyed) child.stdin.destroy();
      if (final.stop) signalGroup(child, 'SIGKILL'); // leftovers that ignored SIGTERM
      if (egress) {
        if (egress.refused.length > 0) log.info({ refused: egress.refused }, 'sandbox egress refused (not in the profile\'s sandbox.allow_hosts)');
        void egress.close();
      }
      resolveRun(finish(final));
    }

    function finish({ exit, stop: stopped }: Extract<Life, { kind: 'settled' }>): RunResult {
      const durationMs = Date.now() - started;
      const timedOut = stopped?.why === 'timeout';
      const cancelled = stopped?.why === 'cancel';
      const base = { sessionId: state.sessionId, timedOut, cancelled, partials: state.partials, notices: state.notices, durationMs, ...(state.usage ? { usage: state.usage } : {}) };
      if (exit.kind === 'spawn-failed') {
        const code = exit.error.code;
        if (code === 'ENOENT' && exec.command !== launch.command) {
          return { ...base, reply: '', error: `The agent sandbox could not start: "${exec.command}" was not found. Install bubblewrap (Debian: apt-get install bubblewrap) or set TURNBRIDGE_SANDBOX=off.`, exitCode: 127 };
        }
        const what = code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'command is not executable' : `cannot start (${code ?? exit.error.message})`;
        return { ...base, reply: '', error: `Agent ${what}: "${launch.command}"${where}. Check "command" in the profile.`, exitCode: code === 'ENOENT' ? 127 : 126 };
      }
      const { code, signal } = exit;
      if (timedOut) {
        const secs = Math.round(timeoutMs / 100) / 10;
        return { ...base, reply: '', error: `The agent did not finish within ${secs} s and was stopped (timeout).`, exitCode: 124 };
      }
      if (state.failed) return { ...base, reply: '', error: state.error, exitCode: 1 };
      if (cancelled) return { ...base, reply: state.reply(), error: 'The turn was stopped.', exitCode: 130 };
      const exitCode = code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);
      if (exitCode !== 0) {
        const how = code !== null ? `exited with code ${code}` : `was killed by ${signal}`;
        const tail = stderr.summary();
        return { ...base, reply: state.reply(), error: `The agent ${how} without reporting an error.${tail ? `\nLast stderr lines:\n${tail}` : ''}`, exitCode };
      }
      return { ...base, reply: state.reply(), error: null, exitCode: 0 };
    }
  });
}
