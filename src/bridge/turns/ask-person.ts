/**
 * An agent's permission request in a running turn, put to a person: a prompt (or a card) posted
 * below the turn's reply through delivery, the turn's slot given away while they decide. A card
 * (a question or a plan: approvals/cards.ts) waits on its own timeout, `question_timeout_secs`
 * (default 1 h, per route), and holds the turn's clock meanwhile (runner/turn-clock.ts): the
 * profile's timeout_secs bounds the agent's work, not the person's answer. A plan's text is shown
 * in the reply, split like any reply, and its card below it.
 */
import type { PlanCard } from '../../chat.js';
import type { PermissionDecision, PartialChunk, PermissionRequest } from '../../protocol/types.js';
import { isCardTool, PLAN_TOOL } from '../../card-words.js';
import { planShownIn, planText, policyFor } from '../approvals/index.js';
import type { TurnActivity } from './conversation-activity.js';
import { afterPlan } from './use-profile.js';
import type { BridgeContext } from './context.js';
import type { Turn } from './turn.js';

/** How much of the agent's latest output is kept to tell whether a plan was already shown. */
const SAID_MAX_CHARS = 64_000;

/** Permission prompts time out before the turn's own timeout (what is left of it, minus a margin). */
export function permissionTimeoutMs(ctx: BridgeContext, turn: Turn): number {
  const configured = (turn.route?.approvalTimeoutSecs ?? ctx.config.permissionTimeoutSecs) * 1000;
  const turnMs = turn.profile.timeoutSecs * 1000;
  if (!(turnMs > 0) || turn.startedAt === undefined) return configured;
  const left = turnMs - (ctx.now() - turn.startedAt);
  const margin = Math.min(5000, turnMs * 0.1);
  return Math.max(0, Math.min(configured, left - margin));
}

/** A card's own timeout: the turn's clock is held while it waits, so no cap by the turn's. */
function cardTimeoutMs(ctx: BridgeContext, turn: Turn): number {
  return (turn.route?.questionTimeoutSecs ?? ctx.config.questionTimeoutSecs) * 1000;
}

/** The agent's output text since its last permission request (what a plan may already have said). */
export function recentOutput() {
  let said = '';
  return {
    push(chunk: PartialChunk): void {
      if (chunk.role === 'thinking') return;
      said = (said + chunk.text).slice(-SAID_MAX_CHARS);
    },
    /** Take what was said, and start again. */
    take(): string {
      const s = said;
      said = '';
      return s;
    },
  };
}

/** Show the plan in the reply unless the agent's own output already did (cards.ts planShownIn). */
function showPlan(turn: Turn, request: PermissionRequest, said: string): PlanCard {
  const plan = planText(request.input);
  if (!plan) return { kind: 'plan', shown: false };
  // Shown as the agent's own text is: it notifies no one unless the profile allows mentions.
  const inert = turn.profile.allowMentions ? plan : turn.surface.neutralizeMentions?.(plan) ?? plan;
  if (!planShownIn(said, plan)) turn.reply?.append({ text: `\n\n${inert}\n` });
  return { kind: 'plan', shown: true };
}

export interface AskContext {
  signal: AbortSignal;
  cwd?: string;
  holdClock?: () => () => void;
  /** The agent's output since its last request (recentOutput().take()). */
  said: string;
  /** What the platform shows of the conversation (waiting on a person, then working again). */
  activity?: TurnActivity;
}

export async function askPerson(ctx: BridgeContext, turn: Turn, request: PermissionRequest, at: AskContext): Promise<PermissionDecision> {
  const { msg, log } = turn;
  if (!turn.surface.capabilities.buttons) return { behavior: 'deny', message: 'This chat cannot show permission buttons.' };
  const card = isCardTool(request.toolName);
  // Held from now until the answer: the wait for the post counts as the person's time too.
  const release = card ? at.holdClock?.() : undefined;
  // A plan in a thread switched to a plan profile: once approved, the thread goes back (use-profile.ts).
  const back = request.toolName === PLAN_TOOL ? await afterPlan(ctx, turn) : undefined;
  let waited = false;
  const decision = await ctx.broker.request({
    turnId: turn.id,
    surface: turn.surface,
    conversation: msg.conversation,
    author: msg.user,
    request,
    signal: at.signal,
    // the agent's cwd: what its relative paths mean, and where path rules may point
    workspace: at.cwd,
    timeoutMs: card ? cardTimeoutMs(ctx, turn) : permissionTimeoutMs(ctx, turn),
    approvers: policyFor(ctx.config, turn.route),
    ...(request.toolName === PLAN_TOOL ? { card: { ...showPlan(turn, request, at.said), ...(back ? { next: back.name } : {}) } } : {}),
    log,
    onAutoAllowed: (line) => turn.reply?.addNotice(`_${line}_`),
    // Through delivery: below the reply, paced and retried like any message.
    post: (render) => (turn.reply ? turn.reply.postPrompt(render) : turn.delivery.prompt(msg.conversation, render)),
    onNotShown: (line) => turn.reply?.addNotice(line),
    // While a person decides, the turn's slot goes to someone else (bounded by
    // limits.promptWaits). Only a real prompt parks: a rule answers without waiting.
    onWaiting: () => {
      waited = true;
      at.activity?.waiting();
      if (!ctx.queue.park(turn)) return;
      ctx.queue.pump();
      ctx.updateGauges();
    },
  }).finally(async () => {
    if (waited) at.activity?.answered();
    // the answer goes back once the turn holds a slot again (maxConcurrent holds)
    await ctx.queue.unpark(turn);
    release?.();
    ctx.updateGauges();
  });
  if (back && decision.behavior === 'allow') {
    const moved = await ctx.state.conversations.useProfile(turn.key, back.choice);
    log.info({ to: back.name, stored: moved }, 'plan approved: the thread goes back to its profile for its next messages');
  }
  return decision;
}
