import type { MessageRef, PermissionPromptView, PromptCard, PromptHow, PromptState, UserRef } from '../../chat.js';
import { randomUUID } from 'node:crypto';
import type { Surface } from '../../delivery/surface.js';
import type { PromptPost, PromptRender, PromptShown } from '../../delivery/types.js';
import type { Logger } from '../../log.js';
import type { PermissionDecision, PermissionRequest } from '../../protocol/types.js';
import { mayDecide as mayDecideFor, mention, refusalText, type ApproverPolicy, type DecisionAction } from './approvers.js';
import { samePerson } from '../access/index.js';
import { auditPerson, auditedInput, conversationKey, requestFacts, type AuditTrail, type DecisionSource, type PermissionRule, type Rules } from '../../state/index.js';
import { formatInputPreview } from './input-preview.js';
import { ruleFor } from './permission-rules.js';
import { editForm, pendingView, readEdit, readReason, reasonForm, viewForm } from './prompt-forms.js';
import { createThreadRuleAnswers } from './thread-rule-answers.js';
import { isCardTool } from '../../card-words.js';
import { cardOf, cardTimeout, closedCardText, withCard } from './cards.js';
import { createCardPrompts, isCardAction } from './card-prompts.js';
import type { PermissionBroker, PermissionBrokerOptions, PromptRequest } from './broker-types.js';

export type { PermissionBroker, PermissionBrokerOptions, PromptRequest } from './broker-types.js';

/**
 * A prompt's life as ONE value: `posting` (opened; delivery posts it when the limiter lets it go),
 * `shown` (visible, its timeout running), `settled` (decided, timed out or expired: the agent has
 * its answer). Only `settle` ends it; a settled prompt keeps only what "already decided" needs.
 */
type PromptLife =
  | { kind: 'posting'; resolve(d: PermissionDecision): void }
  | { kind: 'shown'; resolve(d: PermissionDecision): void; timer: NodeJS.Timeout }
  | { kind: 'settled'; state: PromptState; decidedBy?: UserRef; card?: PromptCard['kind'] };

interface Prompt {
  readonly id: string;
  readonly turnId: string;
  readonly surface: Surface;
  readonly author: UserRef;
  readonly request: PermissionRequest;
  readonly conversationKey: string;
  readonly policy: ApproverPolicy;
  /** What "Allow for this thread" adds; undefined = not offered (a path outside the workspace, the sandbox turned off). */
  readonly rule?: PermissionRule;
  readonly createdAt: number;
  readonly log: Logger;
  view: PermissionPromptView;
  /** Delivery's handle on the prompt's post, and the message once visible (undefined: it never was). */
  readonly post: PromptPost;
  readonly ref: Promise<MessageRef | undefined>;
  life: PromptLife;
}

interface Settlement {
  state: PromptState;
  source: DecisionSource;
  decidedBy?: UserRef;
  /** The platform the decider clicked on (the audit trail's decider). */
  decidedOn?: string;
  note?: string;
  how?: PromptHow;
  reason?: string;
  rule?: string;
  editedInput?: Record<string, unknown>;
  card?: PromptCard;
}

const EXPIRED_NOTE = 'the turn ended before anyone decided';

export function createPermissionBroker(opts: PermissionBrokerOptions): PermissionBroker {
  const idFactory = opts.idFactory ?? (() => `perm-${randomUUID()}`);
  const now = opts.now ?? Date.now;
  /** Every prompt by id: the open ones, and the last `rememberSettled` settled ones (for "already decided"). */
  const prompts = new Map<string, Prompt | { life: Extract<PromptLife, { kind: 'settled' }> }>();
  const rememberSettled = opts.rememberSettled ?? 1000;
  let settledCount = 0;
  /** The prompt with this id while it is open (posting or shown). */
  const openPrompt = (id: string): Prompt | undefined => {
    const e = prompts.get(id);
    return e && e.life.kind !== 'settled' ? (e as Prompt) : undefined;
  };
  const openPrompts = (): Prompt[] => [...prompts.values()].filter((e): e is Prompt => e.life.kind !== 'settled');
  const inFlight = new Set<Promise<void>>();
  const defaultPolicy: ApproverPolicy = { users: opts.approvers, groups: [] };
  const threadRules = opts.rules ? createThreadRuleAnswers(opts.rules, opts.audit, now) : undefined;

  function track(p: Promise<void>): void {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  function settle(p: Prompt, decision: PermissionDecision, s: Settlement): void {
    const life = p.life;
    if (life.kind === 'settled') return;
    if (life.kind === 'shown') clearTimeout(life.timer);
    const { resolve } = life;
    p.life = { kind: 'settled', state: s.state, decidedBy: s.decidedBy, ...(p.view.card ? { card: p.view.card.kind } : {}) };
    // Kept as its life alone, newest last; the oldest settled ones are forgotten past the bound.
    prompts.delete(p.id);
    prompts.set(p.id, { life: p.life });
    if (++settledCount > rememberSettled) {
      for (const [id, e] of prompts) {
        if (e.life.kind !== 'settled') continue;
        prompts.delete(id);
        if (--settledCount <= rememberSettled) break;
      }
    }
    const decidedAt = now();
    p.view = {
      ...p.view,
      state: s.state,
      decidedBy: s.decidedBy,
      note: s.note,
      how: s.how,
      reason: s.reason,
      decidedAt,
      ...(s.editedInput ? { inputPreview: formatInputPreview(s.editedInput) } : {}),
      ...(s.card ? { card: s.card } : {}),
    };
    opts.audit?.record({
      at: decidedAt,
      ...requestFacts({ platform: p.surface.platform, conversation: p.conversationKey, tool: p.request.toolName, input: p.request.input, turnId: p.turnId }),
      ...(s.decidedBy ? { decider: auditPerson(s.decidedOn ?? p.surface.platform, s.decidedBy) } : {}),
      ...(s.editedInput ? { edited: auditedInput(s.editedInput) } : {}),
      decision: decision.behavior,
      ...(decision.behavior === 'deny' && decision.message ? { reason: decision.message } : {}),
      source: s.source,
      ...(s.rule ? { rule: s.rule } : {}),
      latencyMs: decidedAt - p.createdAt,
      promptId: p.id,
    }, p.log);
    // The agent hears the decision once the prompt's post was taken in (the reply continued below
    // it), so its next output lands below the prompt; a post not made yet is dropped at once.
    void p.ref.then(() => resolve(decision));
    const view = p.view;
    // Through delivery: waits for the post (or cancels one that has not gone out yet), then edits.
    const update = (async () => {
      const landed = await p.post.update(view);
      const ref = await p.ref;
      if (!ref) return;
      if (!landed) p.log.warn({ promptId: p.id }, 'could not update the permission prompt');
      opts.record?.settled(p.id);
    })();
    track(update);
  }

  /** Clicks and forms are matched on (platform, id): the prompt's platform is its surface's. */
  async function mayDecide(p: Prompt, platform: string, user: UserRef, action: DecisionAction): Promise<boolean> {
    const policy = { ...p.policy, admins: opts.admins ?? [] };
    return mayDecideFor({ platform, user }, { platform: p.surface.platform, user: p.author }, action, policy, p.surface.groupMembers?.bind(p.surface));
  }

  function refusal(p: Prompt, platform: string, user: UserRef, action: DecisionAction): string {
    return refusalText(p.author, action, p.policy, samePerson({ platform, user }, { platform: p.surface.platform, user: p.author }));
  }

  const cards = createCardPrompts<Prompt>({
    mayAnswer: (p, platform, user) => mayDecide(p, platform, user, 'deny'),
    refusal: (p, platform, user) => refusal(p, platform, user, 'deny'),
    isOpen: (p) => p.life.kind !== 'settled',
    closedText,
    settle,
    refresh(p) {
      const view = p.view;
      track((async () => {
        if (!(await p.post.update(view))) p.log.warn({ promptId: p.id }, 'could not update the card');
        const ref = await p.ref;
        if (ref && p.life.kind !== 'settled') opts.record?.shown({ id: p.id, turnId: p.turnId, platform: p.surface.platform, ref, view });
      })());
    },
  });

  function closedText(id: string): string {
    const life = prompts.get(id)?.life;
    const done = life?.kind === 'settled' ? life : undefined;
    if (done?.card) return closedCardText(done.card, done.state, done.decidedBy);
    if (done?.state === 'allowed' || done?.state === 'denied') return `This request was already ${done.state} by ${mention(done.decidedBy)}.`;
    if (done?.state === 'timeout') return 'This permission request timed out and was denied.';
    return 'This permission request has expired; nothing was changed.';
  }

  function show(req: PromptRequest, key: string): Promise<PermissionDecision> {
    const id = idFactory();
    const log = req.log.child({ promptId: id });
    const policy = req.approvers ?? defaultPolicy;
    // A card is answered, never allowed by a rule: none is offered (card-words.ts isCardTool).
    const card = isCardTool(req.request.toolName) ? req.card ?? cardOf(req.request) : undefined;
    const rule = opts.rules && !isCardTool(req.request.toolName) ? ruleFor(req.request.toolName, req.request.input, req.workspace) : undefined;
    const createdAt = now();
    const timeoutMs = Math.max(0, req.timeoutMs);
    const view = withCard(pendingView(id, req.request, req.author, req.surface.platform, policy, rule, createdAt + timeoutMs), card);
    return new Promise<PermissionDecision>((resolve) => {
      // Rendered when delivery lets the post go: the expiry counts from when the prompt shows. What
      // can be seen is on disk first (write-ahead): a crash right after the post leaves a record
      // that recovery finds the message by (its buttons carry the id).
      const post = req.post(async () => {
        if (p.view.state === 'pending') p.view = { ...p.view, expiresAt: now() + timeoutMs };
        const view = p.view;
        await opts.record?.posting({ id, turnId: p.turnId, platform: p.surface.platform, conversation: req.conversation, view });
        return view;
      });
      const p: Prompt = {
        id, turnId: req.turnId, surface: req.surface, author: req.author, request: req.request, conversationKey: key, policy, rule,
        createdAt, view, log, post, ref: post.shown.then((shown) => onShown(p, req, shown, timeoutMs)), life: { kind: 'posting', resolve },
      };
      prompts.set(id, p);
      track(p.ref.then(() => undefined));
      req.onWaiting?.();
      log.info({ tool: view.toolName, timeoutMs: Math.round(timeoutMs) }, 'permission requested');
      log.debug({ input: req.request.input }, 'permission input');
      req.signal.addEventListener('abort', () => settle(p, { behavior: 'deny', message: 'The turn ended.' }, { state: 'expired', source: 'expired', note: EXPIRED_NOTE }), { once: true });
    });
  }

  /** The prompt is visible: record it and start its timeout. Or it never will be: deny, and say so. */
  function onShown(p: Prompt, req: PromptRequest, shown: PromptShown, timeoutMs: number): MessageRef | undefined {
    if (!shown.ok) {
      // Nothing shows: the write-ahead record (if render got that far) goes.
      opts.record?.settled(p.id);
      if (shown.why === 'cancelled' || p.life.kind === 'settled') return undefined;
      p.log.error({ why: shown.why, err: shown.detail }, 'could not show the permission prompt; answering deny');
      req.onNotShown?.(`⚠️ A permission request for ${p.request.toolName} could not be shown here (${shown.detail}), so it was denied.`);
      settle(p, { behavior: 'deny', message: 'The bridge could not show the permission prompt to the user, so no one could decide; denied.' }, {
        state: 'expired', source: 'unavailable', note: 'the prompt could not be shown',
      });
      return undefined;
    }
    opts.record?.shown({ id: p.id, turnId: p.turnId, platform: p.surface.platform, ref: shown.ref, view: p.view });
    if (p.life.kind !== 'posting') return shown.ref;
    const left = Math.max(0, (p.view.expiresAt ?? now() + timeoutMs) - now());
    const timer = setTimeout(() => {
      const mins = timeoutMs >= 60_000 ? `${Math.round(timeoutMs / 60_000)} min` : `${Math.round(timeoutMs / 1000)} s`;
      const said = p.view.card ? cardTimeout(p.view.card, mins) : { message: `No one answered the permission request within ${mins}; denied.`, note: `timed out after ${mins}: denied` };
      settle(p, { behavior: 'deny', message: said.message }, { state: 'timeout', source: 'timeout', note: said.note });
    }, left);
    p.life = { kind: 'shown', resolve: p.life.resolve, timer };
    return shown.ref;
  }

  return {
    async request(req) {
      if (req.signal.aborted) return { behavior: 'deny', message: 'The turn ended before the request was shown.' };
      const key = conversationKey(req.surface.platform, req.conversation);
      const auto = isCardTool(req.request.toolName) ? undefined : await threadRules?.answer(req, key);
      if (auto) return auto;
      if (req.signal.aborted) return { behavior: 'deny', message: 'The turn ended before the request was shown.' };
      return show(req, key);
    },

    holds: (promptId) => openPrompt(promptId) !== undefined,

    async handleAction(ev) {
      if (ev.action === 'stop') return;
      const p = openPrompt(ev.id);
      if (!p) {
        await ev.notifyPrivately(closedText(ev.id));
        return;
      }
      if (p.view.card || isCardAction(ev.action)) return cards.action(p, ev);
      if (ev.action === 'show_input') {
        // The full input may hold what the fold hid (secrets in a file body): only those who may
        // decide (author, approvers, admins; approvers_only does not bar the author from reading).
        if (!(await mayDecide(p, ev.platform, ev.user, 'deny'))) {
          p.log.info({ platform: ev.platform, user: ev.user.id, action: ev.action }, 'show full input refused: not the author or an approver');
          await ev.notifyPrivately(`Only ${mention(p.author)} or an approver can see the full input (approvers: TURNBRIDGE_APPROVERS / approvers, or TURNBRIDGE_ADMINS).`);
          return;
        }
        const form = viewForm(p.id, p.request);
        if (ev.openForm) await ev.openForm(form);
        else await ev.notifyPrivately(form.kind === 'view' ? form.text : '');
        return;
      }
      const kind: DecisionAction = ev.action === 'deny' || ev.action === 'deny_reason' ? 'deny' : 'allow';
      if (!(await mayDecide(p, ev.platform, ev.user, kind))) {
        p.log.info({ platform: ev.platform, user: ev.user.id, action: ev.action }, 'permission click refused: not the author or an approver');
        await ev.notifyPrivately(refusal(p, ev.platform, ev.user, kind));
        return;
      }
      // Another decision may have come in while the check above awaited a group lookup.
      if (p.life.kind === 'settled') {
        await ev.notifyPrivately(closedText(p.id));
        return;
      }
      switch (ev.action) {
        case 'allow':
          settle(p, { behavior: 'allow' }, { state: 'allowed', source: 'once', how: 'once', decidedBy: ev.user, decidedOn: ev.platform });
          return;
        case 'allow_thread':
        case 'allow_thread_all': {
          if (!threadRules || !p.rule) break;
          const everyone = ev.action === 'allow_thread_all';
          const allow = { rule: p.rule, author: { platform: p.surface.platform, user: p.author }, setBy: { platform: ev.platform, user: ev.user }, everyone, conversation: p.conversationKey, log: p.log };
          const how = everyone ? 'thread_all' : 'thread';
          await threadRules.allow(allow, (rule) => settle(p, { behavior: 'allow' }, { state: 'allowed', source: 'thread', how, decidedBy: ev.user, decidedOn: ev.platform, rule }), ev.notifyPrivately);
          return;
        }
        case 'deny':
          settle(p, { behavior: 'deny', message: `Denied by ${mention(ev.user)}.` }, { state: 'denied', source: 'button', decidedBy: ev.user, decidedOn: ev.platform });
          return;
        case 'deny_reason':
        case 'edit': {
          if (ev.action === 'edit' && !p.view.editable) {
            await ev.notifyPrivately('This input is too long to edit here; allow or deny it as it is.');
            return;
          }
          if (!ev.openForm) {
            await ev.notifyPrivately('This chat cannot show a form; use Allow or Deny.');
            return;
          }
          await ev.openForm(ev.action === 'edit' ? editForm(p.id, p.request) : reasonForm(p.id, p.request.toolName));
          return;
        }
      }
      await ev.notifyPrivately('That choice is not available here.');
    },

    async handleFormSubmit(ev) {
      const p = openPrompt(ev.id);
      if (!p) return { ok: false, error: closedText(ev.id) };
      if (p.view.card || ev.kind === 'other' || ev.kind === 'feedback') return cards.form(p, ev);
      const kind: DecisionAction = ev.kind === 'reason' ? 'deny' : 'allow';
      if (!(await mayDecide(p, ev.platform, ev.user, kind))) {
        p.log.info({ platform: ev.platform, user: ev.user.id, form: ev.kind }, 'permission form refused: not the author or an approver');
        return { ok: false, error: refusal(p, ev.platform, ev.user, kind) };
      }
      if (ev.kind === 'reason') {
        const r = readReason(ev.value);
        if (!r.ok) return r;
        settle(p, { behavior: 'deny', message: r.reason }, { state: 'denied', source: 'reason', how: 'reason', reason: r.reason, decidedBy: ev.user, decidedOn: ev.platform });
        return { ok: true };
      }
      const e = readEdit(p.request, ev.value);
      if (!e.ok) return e;
      settle(p, e.decision, {
        state: 'allowed', source: e.edited ? 'edited' : 'once', how: e.edited ? 'edited' : 'once', decidedBy: ev.user, decidedOn: ev.platform,
        ...(e.decision.updatedInput ? { editedInput: e.decision.updatedInput } : {}),
      });
      return { ok: true };
    },

    expireTurn(turnId, note = EXPIRED_NOTE) {
      for (const p of openPrompts()) {
        if (p.turnId === turnId) settle(p, { behavior: 'deny', message: 'The turn ended.' }, { state: 'expired', source: 'expired', note });
      }
    },

    expireAll(note = 'the bridge restarted') {
      for (const p of openPrompts()) settle(p, { behavior: 'deny', message: 'The bridge is shutting down.' }, { state: 'expired', source: 'expired', note });
    },

    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    get open() {
      return openPrompts().length;
    },
  };
}
