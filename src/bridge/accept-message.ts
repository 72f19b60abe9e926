import type { Delivery } from '../delivery/types.js';
import type { Surface } from '../delivery/surface.js';
import { isTurnbridgeError } from '../errors.js';
import type { Profile } from '../profile/index.js';
import { parseCommand } from './commands.js';
import type { BridgeContext } from './context.js';
import { conversationKey } from './conversation-key.js';
import { executeTurn } from './execute-turn.js';
import { routeMessage } from './routing.js';
import { findStoppable, stopTurn } from './stop-control.js';
import { createTurn, type Turn } from './turn.js';
import { createTurnRecorder } from './turn-recorder.js';
import type { MessageRef } from '../delivery/surface.js';
import type { InboundMessage } from './types.js';

export const BANNER_NO_PERMISSION = 'Note: this agent runs tools without asking for permission.';
const MAX_BANNER_MEMORY = 10_000;

async function tidy(ctx: BridgeContext, msg: InboundMessage): Promise<void> {
  if (msg.cleanup) await msg.cleanup().catch((err: unknown) => ctx.logger.warn({ err }, 'attachment cleanup failed'));
}

async function say(ctx: BridgeContext, delivery: Delivery, msg: InboundMessage, text: string, tone: 'info' | 'warning' | 'error' | 'success'): Promise<void> {
  try {
    await delivery.say(msg.conversation, text, tone);
  } catch (err) {
    ctx.logger.warn({ err, platform: msg.platform }, 'could not post a notice');
  }
}

async function handleCommand(ctx: BridgeContext, cmd: 'reset' | 'stop', msg: InboundMessage, key: string, delivery: Delivery): Promise<void> {
  const log = ctx.logger.child({ platform: msg.platform, conversation: key, user: msg.user.id, command: cmd });
  if (cmd === 'reset') {
    ctx.generations.set(key, (ctx.generations.get(key) ?? 0) + 1);
    // delete() is false both for "nothing stored" and for a store failure (logged by the store).
    const existed = await ctx.store.delete(msg.conversation, msg.platform);
    log.info({ existed }, 'session reset');
    await say(ctx, delivery, msg, 'Started a fresh session: the next message begins a new conversation with the agent.', 'success');
    return;
  }
  const turn = findStoppable(ctx, key);
  if (!turn) {
    await say(ctx, delivery, msg, 'Nothing is running in this conversation.', 'info');
    return;
  }
  const answer = stopTurn(ctx, turn, msg.user);
  if (!answer.ok) await say(ctx, delivery, msg, answer.text, 'warning');
  log.info({ ok: answer.ok, turnId: turn.id }, 'stop command');
}

function profileErrorText(err: unknown): string {
  const code = isTurnbridgeError(err) ? ` (${err.code})` : '';
  return `The agent profile for this conversation could not be loaded${code}. The bridge operator can find the details in the bridge log.`;
}

/** A turn taken over from before a restart: its id and the "queued" message it already showed. */
export interface Resumed {
  turnId: string;
  reuse?: MessageRef;
}

/** InboundMessage -> access -> commands -> profile -> queue (or a clear refusal). Dedupe happened before. */
export async function acceptMessage(ctx: BridgeContext, msg: InboundMessage, resumed?: Resumed): Promise<void> {
  const attached = ctx.surfaces.get(msg.platform);
  if (!attached) {
    ctx.logger.error({ platform: msg.platform }, 'message from a platform with no attached surface');
    await tidy(ctx, msg);
    return;
  }
  const { surface, delivery } = attached;
  const key = conversationKey(msg.platform, msg.conversation);
  const base = { platform: msg.platform, conversation: key, user: msg.user.id };

  const routed = routeMessage(ctx.config, msg);
  if (routed.refusal) {
    ctx.logger.info(base, 'message refused by access rules');
    ctx.metrics.rejected('refused');
    await say(ctx, delivery, msg, routed.refusal, 'warning');
    await tidy(ctx, msg);
    return;
  }
  if (ctx.closing) {
    ctx.logger.info({ ...base, eventId: msg.eventId }, 'message not run: the bridge is shutting down');
    await say(ctx, delivery, msg, 'The bridge is restarting and did not run this message. Please send it again in a minute.', 'warning');
    await tidy(ctx, msg);
    return;
  }
  const cmd = parseCommand(msg.text, msg.attachments.length);
  if (cmd) {
    await handleCommand(ctx, cmd, msg, key, delivery);
    await tidy(ctx, msg);
    return;
  }

  let profile: Profile;
  try {
    profile = await ctx.profile(routed.profilePath);
  } catch (err) {
    ctx.logger.error({ ...base, err, profile: routed.profilePath }, 'profile could not be loaded');
    ctx.metrics.rejected('profile_error');
    await say(ctx, delivery, msg, profileErrorText(err), 'error');
    await tidy(ctx, msg);
    return;
  }
  await enqueue(ctx, msg, { surface, delivery, key, profile, profilePath: routed.profilePath }, resumed);
}

async function enqueue(
  ctx: BridgeContext,
  msg: InboundMessage,
  t: { surface: Surface; delivery: Delivery; key: string; profile: Profile; profilePath: string },
  resumed?: Resumed,
): Promise<void> {
  const id = resumed?.turnId ?? ctx.idFactory();
  const enqueuedAt = ctx.now();
  const log = ctx.logger.child({ turn: id, platform: msg.platform, conversation: t.key, profile: t.profilePath, user: msg.user.id });
  const turn: Turn = createTurn({
    id,
    key: t.key,
    msg,
    surface: t.surface,
    delivery: t.delivery,
    profilePath: t.profilePath,
    profile: t.profile,
    stopActionId: `stop-${ctx.idFactory()}`,
    log,
    enqueuedAt,
    recorder: createTurnRecorder(ctx, { id, key: t.key, msg, enqueuedAt }),
    onPosition: (self, position) => {
      if (!self.reply) return;
      self.showedQueued = true;
      self.reply.setStatus(`queued: position ${position}`);
    },
  });
  if (ctx.queue.offer(turn) === 'busy') {
    log.info({ queueDepth: ctx.config.queueDepth }, 'conversation busy; message refused');
    ctx.metrics.rejected('busy');
    const waiting = ctx.config.queueDepth;
    const text = waiting > 0
      ? `Busy: ${waiting} message${waiting === 1 ? ' is' : 's are'} already waiting in this conversation. Please send this again when the current reply finishes.`
      : 'Busy: the agent is still answering the previous message here. Please send this again when it finishes.';
    await say(ctx, t.delivery, msg, text, 'warning');
    await tidy(ctx, msg);
    return;
  }
  ctx.turns.set(turn.stopActionId, turn);
  // On disk (or in Redis) before anything is shown: a crash from here on loses nothing.
  await turn.recorder.queued();
  if (msg.conversation.thread) {
    // The bot owns this thread from now on: follow-ups without a mention continue it (after restarts too).
    await ctx.guarded('own-thread', t.key, () => ctx.state.threads.own(t.key, ctx.ownThreadTtlMs), undefined);
  }
  log.debug({ text: msg.text, attachments: msg.attachments.length }, 'message accepted');
  ctx.queue.pump();
  const position = turn.state === 'queued' ? ctx.queue.positionOf(turn) : undefined;
  turn.showedQueued = position !== undefined;
  let banner: string | undefined;
  if (!t.profile.permission && !ctx.bannerShown.has(t.key)) {
    banner = BANNER_NO_PERMISSION;
    ctx.bannerShown.add(t.key);
    if (ctx.bannerShown.size > MAX_BANNER_MEMORY) ctx.bannerShown.delete(ctx.bannerShown.values().next().value!);
  }
  turn.reply = t.delivery.open(msg.conversation, {
    recipient: msg.user,
    stopActionId: t.surface.capabilities.buttons ? turn.stopActionId : undefined,
    initialStatus: position !== undefined ? `queued: position ${position}` : undefined,
    notices: msg.notices,
    banner,
    onJournal: (j) => turn.recorder.journal(j),
    ...(resumed?.reuse ? { reuse: resumed.reuse } : {}),
  });
  ctx.updateGauges();
  turn.done = executeTurn(ctx, turn);
}
