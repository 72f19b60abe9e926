import type { Attachment, PartialChunk, PermissionDecision, PermissionRequest, Usage } from '../protocol/types.js';
import type { Logger } from '../log.js';
import type { LaunchPolicy } from './launch-policy.js';

/** What the runner logs through: a pino logger fits; the CLI passes a lighter one (no pino at start-up). */
export type RunLogger = Pick<Logger, 'debug' | 'info' | 'warn'>;

/** A conversation's own directories (see RunOptions.dirs). */
export interface ConversationDirs {
  workspace?: string;
  home?: string;
  /** Where the agent leaves files for the chat: its absolute path is TURNBRIDGE_OUTBOX; writable in the box. */
  outbox?: string;
  /** Places shown read-only in the box under `writable` (a worktree's repository git directory). */
  shown?: string[];
  /** Other places the agent writes (a worktree's objects, refs and own git directory): writable in the box. */
  writable?: string[];
}

/** What the bridge (or CLI) asks of one agent turn. */
export interface TurnInput {
  message: string;
  sessionId?: string;
  sessionName?: string;
  attachments?: Attachment[];
}

/** Callbacks, all optional, called as things happen (undici DispatchHandler style). */
export interface RunHandlers {
  /** A forwarded partial (streaming true, before any error). */
  onPartial?(chunk: PartialChunk): void;
  /**
   * A permission_request (profile permission true). Resolve with the decision; the runner
   * writes the permission_response. `signal` aborts when the turn ends or times out first
   * (the runner then answers deny itself when stdin is still writable). `cwd` is the agent's
   * working directory (what its relative paths mean; the runner always sets it). `holdClock`
   * stops the turn's timeout until the function it returns is called (a person answering a
   * question: turn-clock.ts).
   */
  onPermissionRequest?(request: PermissionRequest, ctx: { signal: AbortSignal; cwd?: string; holdClock?: () => () => void }): Promise<PermissionDecision>;
  /** The first valid session_id, as soon as it is seen. */
  onSessionId?(sessionId: string): void;
  /** A chunk of the agent's stderr (debug output; never shown to chat users by default). */
  onStderr?(chunk: string): void;
  /** The agent process started (pid). */
  onSpawn?(pid: number): void;
  /**
   * The agent's result (or error) event arrived: it will show nothing more, though its process
   * may take a while to exit (a CLI tearing down). The reply can hold live edits for the final one.
   */
  onOutputEnd?(): void;
}

export interface RunOptions {
  /** Cancels the run like a timeout does (SIGTERM, grace, SIGKILL); RunResult.cancelled is true. */
  signal?: AbortSignal;
  logger?: RunLogger;
  /** The bridge's environment for ${VAR} expansion and the infra set (default processEnv(), config/bridge-env.ts). */
  env?: NodeJS.ProcessEnv;
  /** A stdout line longer than this is counted and discarded, never buffered (default 4 MiB). */
  maxLineBytes?: number;
  /** Cap on the kept reply body and on kept partial text (default 1 MiB). */
  maxReplyBytes?: number;
  /** Bytes of stderr tail kept for error messages (default 8 KiB). */
  stderrTailBytes?: number;
  /** Default cwd, protected paths, sandbox, run_as (the bridge's agent settings). Absent: the caller's cwd, no sandbox. */
  launch?: LaunchPolicy;
  /**
   * This conversation's own places (the bridge makes them, 0700): `workspace` is the agent's cwd
   * unless the profile names one (it replaces `launch.defaultCwd`), `home` becomes the agent's HOME.
   * Both are the agent's writable places besides its private tmp, with `outbox` and `writable`.
   */
  dirs?: ConversationDirs;
  /** Override profile timeouts in milliseconds (tests). */
  timeoutMs?: number;
  killGraceMs?: number;
}

/** Every outcome of a turn. run() resolves this; it never rejects for anything the agent does. */
export interface RunResult {
  /**
   * Body still to show after the forwarded partials (spec body assembly): result.text when no
   * output partial was forwarded (or streaming is false), otherwise "".
   * What the user sees = forwarded output partials + reply.
   */
  reply: string;
  /** First valid non-empty session_id of the turn, '' when none. */
  sessionId: string;
  /** User-readable error text when the turn failed, else null. */
  error: string | null;
  /** 0 success; 124 timeout; 1 error event; else the process exit code (128+n for signals). */
  exitCode: number;
  timedOut: boolean;
  /** Ended through options.signal (Stop button, shutdown). */
  cancelled: boolean;
  usage?: Usage;
  /** Forwarded partials in order, with role when the agent gave one. */
  partials: PartialChunk[];
  /** Things the user should know that are not errors (oversized event dropped, body truncated). */
  notices: string[];
  durationMs: number;
}
