/**
 * An in-memory Surface for tests: records every call, keeps what the user sees now, and can
 * inject failures (429s or other errors) for the next N calls of an operation.
 *
 * ```ts
 * const s = createRecordingSurface({ maxTextChars: 100 });
 * s.failNext('edit', 2, { retryAfterMs: 500 });   // the next two edits answer 429
 * const ref = await s.post(conv, { text: 'hi' });
 * s.visibleText(ref);                             // 'hi'
 * s.calls.filter((c) => c.op === 'edit').length;  // edits recorded so far (failed ones too)
 * ```
 */
import type { Conversation, MessageContent, MessageRef, PermissionPromptView, SourceMessageRef } from '../../src/chat.js';
import { RateLimitedError, TurnbridgeError } from '../../src/errors.js';
import type { FilePost, RateBudget, ReactionState, Surface, SurfaceCapabilities } from '../../src/delivery/surface.js';

export type RecordedOp = 'post' | 'edit' | 'postPrompt' | 'updatePrompt' | 'showTyping' | 'react' | 'postFiles';

/** One recorded call. `ok` is false when an injected failure made it throw. */
export interface RecordedCall {
  op: RecordedOp;
  conversation: Conversation;
  /** The message/prompt the call created or touched (absent for showTyping, failed posts). */
  ref?: MessageRef;
  content?: MessageContent;
  view?: PermissionPromptView;
  reaction?: ReactionState;
  /** `now()` when the call started. */
  at: number;
  ok: boolean;
  error?: unknown;
}

/** One stored chat message as the user sees it now. */
export interface StoredMessage {
  ref: MessageRef;
  content: MessageContent;
  /** Every content this message has shown, first = as posted. */
  history: MessageContent[];
  postedAt: number;
}

export interface StoredPrompt {
  ref: MessageRef;
  view: PermissionPromptView;
  history: PermissionPromptView[];
}

/**
 * What an injected failure looks like: `{ retryAfterMs }` throws RateLimitedError,
 * `{ error }` throws that value, `{ message }` throws TurnbridgeError TB_PLATFORM_ERROR.
 */
export type InjectedFailure = { retryAfterMs: number } | { error: unknown } | { message: string };

export interface RecordingSurfaceOptions {
  /** Default 'test'. */
  platform?: string;
  /** Default 4000. */
  maxTextChars?: number;
  /** Default 200. */
  maxThinkingChars?: number;
  /** Default 0. */
  minEditIntervalMs?: number;
  /** Default true. */
  buttons?: boolean;
  /**
   * Budgets per op; a function or a fixed table. Default: none (no limiter pacing).
   * Example (Slack-like): `{ edit: (c) => [{ key: `slack:${c.space}:chat.update`, perMinute: 50 }] }`.
   */
  budgets?:
    | ((op: 'post' | 'edit', conversation: Conversation) => RateBudget[])
    | { post?: RateBudget[] | ((c: Conversation) => RateBudget[]); edit?: RateBudget[] | ((c: Conversation) => RateBudget[]) };
  /** Failures to inject from the start, per op, in order (one entry per failing call). */
  failWith?: Partial<Record<RecordedOp, InjectedFailure[]>>;
  /** Clock for `at` stamps. Default Date.now. */
  now?: () => number;
  /**
   * Optional hook run inside every call before it completes (e.g. `() => sleep(5)` or a
   * promise a test resolves), to hold calls "in flight".
   */
  delay?: (op: RecordedOp) => Promise<void> | void;
  /** Offer showTyping / react (default true). */
  optionalOps?: boolean;
  /** Take files (postFiles / findFiles) within these limits (default: 10 files, 25 MiB a message, 10 MiB a file). */
  fileLimits?: { maxFiles: number; maxMessageBytes: number; maxFileBytes: number };
}

/** A message of files as stored. */
export interface StoredFilePost {
  conversation: Conversation;
  post: FilePost;
  postedAt: number;
}

export interface RecordingSurface extends Surface {
  /** Every call, in order (including failed ones). */
  readonly calls: RecordedCall[];
  /** Queue failures for the next `count` calls of `op`. Returns the surface for chaining. */
  failNext(op: RecordedOp, count: number, failure: InjectedFailure): RecordingSurface;
  /** The message as stored now; throws when unknown. */
  message(ref: MessageRef | string): StoredMessage;
  /** The answer text the user sees now in this message. */
  visibleText(ref: MessageRef | string): string;
  /** Current content of this message. */
  contentOf(ref: MessageRef | string): MessageContent;
  /** Messages posted in a conversation (channel + thread match; space too), in post order. */
  messagesIn(conversation: Conversation): StoredMessage[];
  /** All messages, in post order. */
  messages(): StoredMessage[];
  /** All prompts, in post order. */
  prompts(): StoredPrompt[];
  /** Messages of files, in post order. */
  filePosts(): StoredFilePost[];
  /** Recorded calls of one op. */
  callsOf(op: RecordedOp): RecordedCall[];
  /** Most edits/posts in flight at the same time so far, per message ref id (posts count toward the ref they created). */
  readonly maxInFlightPerMessage: number;
  /** Calls in flight right now. */
  readonly inFlight: number;
  /** Reactions applied to source messages, in order. */
  readonly reactions: Array<{ source: SourceMessageRef; state: ReactionState }>;
  /** Forget recorded calls (stored messages stay). */
  clearCalls(): void;
}

const sameConversation = (a: Conversation, b: Conversation): boolean =>
  a.space === b.space && a.channel === b.channel && a.thread === b.thread;

function makeError(f: InjectedFailure): unknown {
  if ('retryAfterMs' in f) return new RateLimitedError(`injected 429 (retry after ${f.retryAfterMs} ms)`, f.retryAfterMs);
  if ('error' in f) return f.error;
  return new TurnbridgeError('TB_PLATFORM_ERROR', f.message);
}

/** Build an in-memory Surface; see the file header for an example. */
export function createRecordingSurface(opts: RecordingSurfaceOptions = {}): RecordingSurface {
  const now = opts.now ?? Date.now;
  const capabilities: SurfaceCapabilities = {
    maxTextChars: opts.maxTextChars ?? 4000,
    maxThinkingChars: opts.maxThinkingChars ?? 200,
    buttons: opts.buttons ?? true,
    minEditIntervalMs: opts.minEditIntervalMs ?? 0,
  };
  const calls: RecordedCall[] = [];
  const stored = new Map<string, StoredMessage>();
  const prompts = new Map<string, StoredPrompt>();
  const failures = new Map<RecordedOp, InjectedFailure[]>();
  for (const [op, list] of Object.entries(opts.failWith ?? {})) failures.set(op as RecordedOp, [...(list ?? [])]);
  const reactions: Array<{ source: SourceMessageRef; state: ReactionState }> = [];
  const filePosts: StoredFilePost[] = [];
  const fileLimits = opts.fileLimits ?? { maxFiles: 10, maxMessageBytes: 25 * 1048576, maxFileBytes: 10 * 1048576 };
  let seq = 0;
  let inFlight = 0;
  const inFlightPerRef = new Map<string, number>();
  let maxInFlightPerMessage = 0;

  function budgets(op: 'post' | 'edit', conversation: Conversation): RateBudget[] {
    const b = opts.budgets;
    if (!b) return [];
    if (typeof b === 'function') return b(op, conversation);
    const entry = b[op];
    if (!entry) return [];
    return typeof entry === 'function' ? entry(conversation) : entry;
  }

  /** Runs one recorded call: delay hook, injected failure, then the effect. */
  async function record<T>(call: Omit<RecordedCall, 'at' | 'ok'>, refKey: string | undefined, effect: (entry: RecordedCall) => T): Promise<T> {
    const entry: RecordedCall = { ...call, at: now(), ok: false };
    calls.push(entry);
    inFlight++;
    if (refKey !== undefined) {
      const n = (inFlightPerRef.get(refKey) ?? 0) + 1;
      inFlightPerRef.set(refKey, n);
      maxInFlightPerMessage = Math.max(maxInFlightPerMessage, n);
    }
    try {
      if (opts.delay) await opts.delay(call.op);
      const queued = failures.get(call.op);
      const failure = queued?.shift();
      if (failure) {
        entry.error = makeError(failure);
        throw entry.error;
      }
      const out = effect(entry);
      entry.ok = true;
      return out;
    } finally {
      inFlight--;
      if (refKey !== undefined) inFlightPerRef.set(refKey, (inFlightPerRef.get(refKey) ?? 1) - 1);
    }
  }

  const key = (ref: MessageRef | string): string => (typeof ref === 'string' ? ref : ref.id);
  function message(ref: MessageRef | string): StoredMessage {
    const m = stored.get(key(ref));
    if (!m) throw new TurnbridgeError('TB_PLATFORM_ERROR', `recording surface: no message ${key(ref)}`);
    return m;
  }
  const copy = (c: MessageContent): MessageContent => ({ ...c });

  const surface: RecordingSurface = {
    platform: opts.platform ?? 'test',
    capabilities,
    budgets,
    calls,
    reactions,
    get maxInFlightPerMessage() {
      return maxInFlightPerMessage;
    },
    get inFlight() {
      return inFlight;
    },

    post(conversation, content) {
      const id = `${opts.platform ?? 'test'}:m${++seq}`;
      return record({ op: 'post', conversation, content: copy(content) }, id, (entry) => {
        const ref: MessageRef = { id, conversation };
        stored.set(id, { ref, content: copy(content), history: [copy(content)], postedAt: now() });
        entry.ref = ref;
        return ref;
      });
    },

    edit(ref, content) {
      return record({ op: 'edit', conversation: ref.conversation, ref, content: copy(content) }, ref.id, () => {
        const m = message(ref);
        m.content = copy(content);
        m.history.push(copy(content));
      });
    },

    postPrompt(conversation, view) {
      const id = `${opts.platform ?? 'test'}:p${++seq}`;
      const ref: MessageRef = { id, conversation };
      return record({ op: 'postPrompt', conversation, view: { ...view } }, undefined, (entry) => {
        entry.ref = ref;
        prompts.set(id, { ref, view: { ...view }, history: [{ ...view }] });
        return ref;
      });
    },

    updatePrompt(ref, view) {
      return record({ op: 'updatePrompt', conversation: ref.conversation, ref, view: { ...view } }, undefined, () => {
        const p = prompts.get(ref.id);
        if (!p) throw new TurnbridgeError('TB_PLATFORM_ERROR', `recording surface: no prompt ${ref.id}`);
        p.view = { ...view };
        p.history.push({ ...view });
      });
    },

    postFiles(conversation, post) {
      return record({ op: 'postFiles', conversation }, undefined, () => {
        if (post.files.length > fileLimits.maxFiles) throw new TurnbridgeError('TB_PLATFORM_ERROR', `recording surface: ${post.files.length} files in one message`, { permanent: true });
        filePosts.push({ conversation, post: { ...post, files: post.files.map((f) => ({ ...f })) }, postedAt: now() });
      });
    },
    fileLimits: () => ({ ...fileLimits }),
    fileBudgets: (conversation) => budgets('post', conversation),
    async findFiles(conversation, q) {
      return filePosts.some((p) => sameConversation(p.conversation, conversation) && p.post.marker === q.marker);
    },

    failNext(op, count, failure) {
      const list = failures.get(op) ?? [];
      for (let i = 0; i < count; i++) list.push(failure);
      failures.set(op, list);
      return surface;
    },
    message,
    visibleText: (ref) => message(ref).content.text,
    contentOf: (ref) => message(ref).content,
    messagesIn: (conversation) => [...stored.values()].filter((m) => sameConversation(m.ref.conversation, conversation)),
    messages: () => [...stored.values()],
    prompts: () => [...prompts.values()],
    filePosts: () => [...filePosts],
    callsOf: (op) => calls.filter((c) => c.op === op),
    clearCalls: () => {
      calls.length = 0;
    },
  };

  if (opts.optionalOps !== false) {
    surface.showTyping = (conversation) => record({ op: 'showTyping', conversation }, undefined, () => undefined);
    surface.react = (source, state) =>
      record({ op: 'react', conversation: source.conversation, reaction: state }, undefined, () => {
        reactions.push({ source, state });
      });
  }
  return surface;
}
