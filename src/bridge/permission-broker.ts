import { randomUUID } from 'node:crypto';
import type { Conversation, MessageRef, PermissionPromptView, PromptState, Surface, UserRef } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import type { PermissionDecision, PermissionRequest } from '../protocol/types.js';
import { mayDecide, mention } from './approvers.js';
import { formatInputPreview } from './input-preview.js';
import type { ActionEvent } from './types.js';

export interface PromptRequest {
  turnId: string;
  surface: Surface;
  conversation: Conversation;
  /** The person who started the turn. */
  author: UserRef;
  request: PermissionRequest;
  /** Aborted by the runner when the turn ends first. */
  signal: AbortSignal;
  /** Answer deny after this long. */
  timeoutMs: number;
  log: Logger;
  /** Wait for this before posting the prompt (the turn's live reply lands first). */
  beforePost?: () => Promise<unknown>;
  /** The prompt was posted (the turn's live reply then continues below it). */
  onPosted?: () => void;
}

export interface PermissionBroker {
  /** Show a prompt and resolve with the first valid decision, a timeout deny, or an expiry deny. */
  request(req: PromptRequest): Promise<PermissionDecision>;
  /** An Allow / Deny click. Unknown or settled ids are answered privately. */
  handleAction(ev: ActionEvent): Promise<void>;
  /** The turn ended: its open prompts show "expired". */
  expireTurn(turnId: string, note?: string): void;
  /** Every open prompt shows "expired" (shutdown). */
  expireAll(note?: string): void;
  /** Resolves once every prompt edit started so far has landed (or failed). */
  idle(): Promise<void>;
  readonly open: number;
  /** Whether this broker holds an open prompt with this id (else another replica may). */
  holds(promptId: string): boolean;
}

export interface PermissionBrokerOptions {
  approvers: readonly string[];
  logger: Logger;
  idFactory?: () => string;
  /** How many settled prompt ids are remembered for "already decided" answers (default 1000). */
  rememberSettled?: number;
}

interface OpenPrompt {
  id: string;
  turnId: string;
  surface: Surface;
  author: UserRef;
  view: PermissionPromptView;
  ref?: Promise<MessageRef | undefined>;
  timer?: NodeJS.Timeout;
  resolve(d: PermissionDecision): void;
  log: Logger;
  /** Serialises updates of this prompt after its post. */
  chain: Promise<void>;
}

const EXPIRED_NOTE = 'the turn ended before anyone decided';

export function createPermissionBroker(opts: PermissionBrokerOptions): PermissionBroker {
  const idFactory = opts.idFactory ?? (() => `perm-${randomUUID()}`);
  const open = new Map<string, OpenPrompt>();
  const settled = new Map<string, { state: PromptState; decidedBy?: UserRef }>();
  const maxSettled = opts.rememberSettled ?? 1000;
  const inFlight = new Set<Promise<void>>();

  function track(p: Promise<void>): void {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  function settle(p: OpenPrompt, state: PromptState, decision: PermissionDecision, extra: { decidedBy?: UserRef; note?: string } = {}): void {
    if (!open.delete(p.id)) return;
    clearTimeout(p.timer);
    settled.set(p.id, { state, decidedBy: extra.decidedBy });
    while (settled.size > maxSettled) settled.delete(settled.keys().next().value!);
    p.view = { ...p.view, state, decidedBy: extra.decidedBy, note: extra.note };
    const view = p.view;
    p.log.info({ promptId: p.id, tool: view.toolName, state, decidedBy: extra.decidedBy?.id }, 'permission settled');
    p.resolve(decision);
    const update = p.chain.then(async () => {
      const ref = await p.ref;
      if (!ref) return;
      try {
        await p.surface.updatePrompt(ref, view);
      } catch (err) {
        p.log.warn({ err, promptId: p.id }, 'could not update the permission prompt');
      }
    });
    p.chain = update;
    track(update);
  }

  return {
    request(req) {
      const id = idFactory();
      const log = req.log.child({ promptId: id });
      const view: PermissionPromptView = {
        promptId: id,
        toolName: req.request.toolName,
        description: req.request.description,
        inputPreview: formatInputPreview(req.request.input),
        state: 'pending',
      };
      if (req.signal.aborted) return Promise.resolve({ behavior: 'deny', message: 'The turn ended before the request was shown.' });
      return new Promise<PermissionDecision>((resolve) => {
        const p: OpenPrompt = { id, turnId: req.turnId, surface: req.surface, author: req.author, view, resolve, log, chain: Promise.resolve() };
        open.set(id, p);
        log.info({ tool: view.toolName, timeoutMs: Math.round(req.timeoutMs) }, 'permission requested');
        log.debug({ input: req.request.input }, 'permission input');
        const ready = req.beforePost ? req.beforePost().catch(() => undefined) : Promise.resolve();
        p.ref = ready.then(() => req.surface.postPrompt(req.conversation, view)).then(
          (ref) => {
            req.onPosted?.();
            return ref;
          },
          (err: unknown) => {
            log.error({ err }, 'could not show the permission prompt; answering deny');
            settle(p, 'expired', { behavior: 'deny', message: 'The bridge could not show the permission prompt to the user.' });
            return undefined;
          },
        );
        track(p.ref.then(() => undefined));
        p.timer = setTimeout(() => {
          const mins = req.timeoutMs >= 60_000 ? `${Math.round(req.timeoutMs / 60_000)} min` : `${Math.round(req.timeoutMs / 1000)} s`;
          settle(p, 'timeout', { behavior: 'deny', message: `No one answered the permission request within ${mins}; denied.` }, {
            note: `timed out after ${mins}: denied`,
          });
        }, Math.max(0, req.timeoutMs));
        req.signal.addEventListener('abort', () => settle(p, 'expired', { behavior: 'deny', message: 'The turn ended.' }, { note: EXPIRED_NOTE }), { once: true });
      });
    },

    holds: (promptId) => open.has(promptId),

    async handleAction(ev) {
      const p = open.get(ev.id);
      if (!p) {
        const done = settled.get(ev.id);
        let text = 'This permission request has expired; nothing was changed.';
        if (done?.state === 'allowed' || done?.state === 'denied') {
          text = `This request was already ${done.state} by ${mention(done.decidedBy)}.`;
        } else if (done?.state === 'timeout') {
          text = 'This permission request timed out and was denied.';
        }
        await ev.notifyPrivately(text);
        return;
      }
      if (ev.action !== 'allow' && ev.action !== 'deny') return;
      if (!mayDecide(ev.user, p.author, opts.approvers)) {
        p.log.info({ user: ev.user.id }, 'permission click refused: not the author or an approver');
        await ev.notifyPrivately(`Only ${mention(p.author)} or an approver can answer this request.`);
        return;
      }
      if (ev.action === 'allow') settle(p, 'allowed', { behavior: 'allow' }, { decidedBy: ev.user });
      else settle(p, 'denied', { behavior: 'deny', message: `Denied by ${mention(ev.user)}.` }, { decidedBy: ev.user });
    },

    expireTurn(turnId, note = EXPIRED_NOTE) {
      for (const p of [...open.values()]) {
        if (p.turnId === turnId) settle(p, 'expired', { behavior: 'deny', message: 'The turn ended.' }, { note });
      }
    },

    expireAll(note = 'the bridge restarted') {
      for (const p of [...open.values()]) settle(p, 'expired', { behavior: 'deny', message: 'The bridge is shutting down.' }, { note });
    },

    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    get open() {
      return open.size;
    },
  };
}
