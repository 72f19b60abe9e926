import type { MessageRef } from '../../chat.js';
import { parseIdentity } from '../../config/identity-forms.js';
import type { RouteConfig } from '../../config/types.js';
import type { Surface } from '../../delivery/surface.js';
import type { Delivery } from '../../delivery/types.js';
import { isTurnbridgeError } from '../../errors.js';
import type { Profile } from '../../profile/index.js';
import { auditPerson, conversationKey } from '../../state/index.js';
import { actorOf, checkAccess, identityOf, isAdmin, sendWayIn } from '../access/index.js';
import { describeRule, scopeText } from '../approvals/index.js';
import type { InboundMessage } from '../types.js';
import type { BridgeContext } from './context.js';
import { conversationDirs, conversationPlaces } from './conversation-dirs.js';
import { placeFiles, stagingDir } from './conversation-files.js';
import { gateTurn, takeTicket } from './conversation-order.js';
import { executeTurn } from './execute-turn.js';
import { findStoppable, stopTurn } from './stop-control.js';
import type { OfferResult } from './turn-queue.js';
import { isWaiting } from './turn-registry.js';
import { isUseCommand, parseUseCommand, routeFor, useProfile } from './use-profile.js';
import { createTurn, type Turn } from './turn.js';
import { handleWorktreeCommand, parseWorktreeCommand } from './worktree-commands.js';

export const BANNER_NO_PERMISSION = 'Note: this agent runs tools without asking for permission.';
/** The store key part of the banner's "shown once" memory. */
const AUTO_APPROVE_NOTICE = 'auto-approve';
/** One way-in reply per person per 10 minutes: a stranger's 300 messages get one answer. */
const WAY_IN_EVERY_MS = 10 * 60_000;

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

/** `rules`: the thread's "Allow for this thread" rules, who set them and when. */
async function listRules(ctx: BridgeContext, msg: InboundMessage, key: string, delivery: Delivery): Promise<void> {
  const rules = await ctx.state.rules.list(key);
  if (rules.length === 0) {
    await say(ctx, delivery, msg, 'No permission rules in this thread. "Allow for this thread" on a prompt adds one.', 'info');
    return;
  }
  const lines = rules.map((r) => `• \`${describeRule(r.rule)}\` ${scopeText(r.scope)}, set by @${r.setBy.name ?? r.setBy.id} at ${new Date(r.setAt).toISOString().replace('T', ' ').slice(0, 16)} UTC`);
  await say(ctx, delivery, msg, `Permission rules in this thread (matching requests are allowed without asking):\n${lines.join('\n')}\nType \`rules clear\` to remove them.`, 'info');
}

async function handleCommand(ctx: BridgeContext, cmd: BridgeCommand, msg: InboundMessage, key: string, delivery: Delivery, admin: boolean, route?: RouteConfig): Promise<void> {
  const log = ctx.logger.child({ platform: msg.platform, conversation: key, user: msg.user.id, command: cmd });
  if (cmd === 'reset') {
    const record = await ctx.state.sessions.get(key);
    // The session record's author, else the one recorded when the first turn was accepted.
    const author = record?.author ?? (await ctx.state.conversations.author(key));
    const me = identityOf(actorOf(msg));
    if (author && author !== me && !admin) {
      log.info({ author }, 'reset refused: not the conversation\'s author or an admin');
      await say(ctx, delivery, msg, `Only the person who started this conversation (${author}) or an admin (TURNBRIDGE_ADMINS / access.admins) can reset its session.`, 'warning');
      return;
    }
    // A turn of this conversation that already read its session (here or on another replica)
    // must not save it over the reset: the mark moves on once the session is gone.
    // delete() is false both for "nothing stored" and for a store failure (logged by the store).
    const [existed, rules] = await Promise.all([
      ctx.state.resets.reset(key, () => ctx.state.sessions.delete(key)),
      ctx.state.rules.clear(key),
      ctx.state.conversations.forgetNotice(key, AUTO_APPROVE_NOTICE),
    ]);
    log.info({ existed, rulesCleared: rules }, 'session reset');
    if (rules > 0) ctx.state.audit.ruleCleared({ conversation: key, count: rules, by: auditPerson(msg.platform, msg.user), why: 'reset' }, log);
    const also = (rules > 0 ? ` The thread's ${rules} permission rule${rules === 1 ? ' is' : 's are'} gone too.` : '')
      + (route?.worktree ? ' The worktree and its branch stay (`worktree remove` removes the worktree).' : '');
    await say(ctx, delivery, msg, `Started a fresh session: the next message begins a new conversation with the agent.${also}`, 'success');
    ctx.activity.closed(key, msg.conversation, delivery);
    return;
  }
  if (cmd === 'rules') return listRules(ctx, msg, key, delivery);
  if (cmd === 'rules-clear') {
    const n = await ctx.state.rules.clear(key);
    log.info({ rulesCleared: n }, 'permission rules cleared');
    if (n > 0) ctx.state.audit.ruleCleared({ conversation: key, count: n, by: auditPerson(msg.platform, msg.user), why: 'rules-clear' }, log);
    await say(ctx, delivery, msg, n > 0 ? `Removed ${n} permission rule${n === 1 ? '' : 's'}: the agent asks again.` : 'No permission rules in this thread.', 'success');
    return;
  }
  const turn = findStoppable(ctx, key);
  if (!turn) {
    await say(ctx, delivery, msg, 'Nothing is running in this conversation.', 'info');
    return;
  }
  const answer = stopTurn(ctx, turn, msg.user, msg.platform);
  if (!answer.ok) await say(ctx, delivery, msg, answer.text, 'warning');
  log.info({ ok: answer.ok, turnId: turn.id }, 'stop command');
}

/** `allow slack:U0123` in chat: admins let people in. */
async function allowInChat(ctx: BridgeContext, written: string, msg: InboundMessage, delivery: Delivery, admin: boolean): Promise<void> {
  const id = parseIdentity(written);
  if (!admin) {
    await say(ctx, delivery, msg, 'Only admins (TURNBRIDGE_ADMINS / access.admins) can let people in.', 'warning');
    return;
  }
  if (!id) {
    await say(ctx, delivery, msg, 'Write it as `allow slack:U0123`, `allow discord:8035…` or `allow discord:role:123…`.', 'warning');
    return;
  }
  if (id.startsWith('slack:S')) {
    await say(ctx, delivery, msg, `${id} is a Slack user group: add it to TURNBRIDGE_ALLOW_USERS (access.allow_users), where the bridge looks up its members.`, 'warning');
    return;
  }
  const result = await ctx.state.grants.add(id, auditPerson(msg.platform, msg.user), { via: 'chat' });
  ctx.logger.info({ platform: msg.platform, user: msg.user.id, granted: id, result }, 'access granted in chat');
  if (result === 'added') await say(ctx, delivery, msg, `${id} can use the bridge now.`, 'success');
  else if (result === 'already') await say(ctx, delivery, msg, `${id} is already allowed; nothing changed.`, 'info');
  else await say(ctx, delivery, msg, `Could not save the grant for ${id} (store failure; the bridge log has the details).`, 'error');
}

/** Refused by the access rules: the way-in reply (with a pairing code) at most once per person per window. */
async function refuse(ctx: BridgeContext, surface: Surface, delivery: Delivery, msg: InboundMessage, reason: string, text: string): Promise<void> {
  const who = identityOf(actorOf(msg));
  ctx.logger.info({ platform: msg.platform, user: msg.user.id, reason, conversation: conversationKey(msg.platform, msg.conversation) }, 'message refused by access rules');
  ctx.metrics.rejected('refused');
  const last = ctx.wayInShown.get(`${who}:${reason}`);
  if (last !== undefined && ctx.now() - last < WAY_IN_EVERY_MS) return;
  ctx.wayInShown.set(`${who}:${reason}`, ctx.now());
  if (reason === 'not-allowed') await sendWayIn({ grants: ctx.state.grants, logger: ctx.logger }, surface, msg, (t) => say(ctx, delivery, msg, t, 'warning'));
  else await say(ctx, delivery, msg, text, 'warning');
}

function busyText(ctx: BridgeContext, result: Exclude<OfferResult, 'accepted'>): string {
  const { queueDepth, limits } = ctx.config;
  if (result === 'user-busy') {
    return `Busy: you already have ${limits.waitingPerUser} message${limits.waitingPerUser === 1 ? '' : 's'} waiting. Please send this again when one of them has started (TURNBRIDGE_MAX_WAITING_PER_USER / limits.waiting_per_user).`;
  }
  if (result === 'full') {
    return `Busy: ${limits.waiting} messages are already waiting across the bridge. Please try again in a few minutes (TURNBRIDGE_MAX_WAITING / limits.waiting).`;
  }
  return queueDepth > 0
    ? `Busy: ${queueDepth} message${queueDepth === 1 ? ' is' : 's are'} already waiting in this conversation. Please send this again when the current reply finishes (TURNBRIDGE_QUEUE_DEPTH / queue_depth).`
    : 'Busy: the agent is still answering the previous message here. Please send this again when it finishes (TURNBRIDGE_QUEUE_DEPTH / queue_depth).';
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

/**
 * InboundMessage -> access -> commands -> profile -> queue -> files (or a clear refusal). Dedupe
 * happened before. Files are fetched only after the access and queue checks passed.
 */
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

  // Its route, or the profile its conversation switched to (`use`), with that one's restrictions.
  const routed = await routeFor(ctx, msg, key);
  const verdict = await checkAccess(ctx.config.access, ctx.state.grants, msg, routed.route);
  if (!verdict.ok) {
    await refuse(ctx, surface, delivery, msg, verdict.reason, verdict.text);
    await tidy(ctx, msg);
    return;
  }
  if (ctx.closing) {
    ctx.logger.info({ ...base, eventId: msg.eventId }, 'message not run: the bridge is shutting down');
    await say(ctx, delivery, msg, 'The bridge is restarting and did not run this message. Please send it again in a minute.', 'warning');
    await tidy(ctx, msg);
    return;
  }
  const files = msg.attachments.length + (msg.download?.count ?? 0);
  const cmd = parseCommand(msg.text, files);
  const allow = cmd ? undefined : parseAllowCommand(msg.text, files);
  // `diff` and `worktree remove` are commands only where conversations have a worktree.
  const tree = cmd || allow || !routed.route?.worktree ? undefined : parseWorktreeCommand(msg.text, files);
  const use = cmd || allow || tree ? undefined : parseUseCommand(msg.text, files);
  if (cmd || allow || tree || (use && (await isUseCommand(ctx, use, msg)))) {
    const admin = isAdmin(ctx.config.access, actorOf(msg));
    if (cmd) await handleCommand(ctx, cmd, msg, key, delivery, admin, routed.route);
    else if (tree) await handleWorktreeCommand(ctx, tree, msg, key, attached, admin);
    else if (allow) await allowInChat(ctx, allow, msg, delivery, admin);
    else await useProfile(ctx, use!, msg, key, admin, (text, tone) => say(ctx, delivery, msg, text, tone));
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
  await enqueue(ctx, msg, { surface, delivery, key, profile, profilePath: routed.profilePath, route: routed.route }, resumed);
}

async function enqueue(
  ctx: BridgeContext,
  msg: InboundMessage,
  t: { surface: Surface; delivery: Delivery; key: string; profile: Profile; profilePath: string; route?: RouteConfig },
  resumed?: Resumed,
): Promise<void> {
  const id = resumed?.turnId ?? ctx.idFactory();
  const enqueuedAt = ctx.now();
  const log = ctx.logger.child({ turn: id, platform: msg.platform, conversation: t.key, profile: t.profilePath, user: msg.user.id });
  const stopActionId = `stop-${ctx.idFactory()}`;
  const turn: Turn = createTurn({
    id,
    key: t.key,
    msg,
    surface: t.surface,
    delivery: t.delivery,
    profilePath: t.profilePath,
    profile: t.profile,
    route: t.route,
    stopActionId,
    log,
    enqueuedAt,
    ledger: ctx.state.ledger.forTurn({ id, key: t.key, msg, enqueuedAt, ...(t.surface.capabilities.buttons ? { marker: stopActionId } : {}) }),
    registry: ctx.turns,
    onPosition: (self, position) => {
      if (!self.reply) return;
      self.showedQueued = true;
      self.reply.setStatus(`queued: position ${position}`);
    },
  });
  gateTurn(ctx, turn);
  const offered = ctx.queue.offer(turn);
  if (offered !== 'accepted') {
    log.info({ result: offered, queueDepth: ctx.config.queueDepth }, 'message refused: busy');
    ctx.metrics.rejected('busy');
    await say(ctx, t.delivery, msg, busyText(ctx, offered), 'warning');
    await tidy(ctx, msg);
    return;
  }
  ctx.turns.admit(turn);
  // On disk (or in Redis) before anything is shown: a crash from here on loses nothing. In the
  // same commit (one fsync, not one each): in a thread, the bot owns it from now on (follow-ups
  // without a mention continue it, after restarts too); the first accepted turn makes its writer
  // the conversation's author (`new` / `reset` is theirs); and the banner is claimed, remembered
  // so a restart does not announce it again. Only now that the turn is accepted: a first message
  // refused as busy keeps the banner, and its writer takes no conversation.
  const w = ctx.state.writes;
  const banner = !t.profile.permission;
  const claimed = await turn.ledger.queued([
    w.authorClaim(t.key, turn.owner),
    ...(banner ? [w.noticeClaim(t.key, AUTO_APPROVE_NOTICE)] : []),
    ...(msg.conversation.thread ? [w.threadOwn(t.key, ctx.ownThreadTtlMs)] : []),
  ]);
  // A failed store shows the banner: better shown twice than never.
  const first = banner && (claimed?.[1] ?? true);
  // Arrival order is the order Redis hands out tickets: taken before the message counts as accepted.
  await takeTicket(ctx, turn);
  log.debug({ text: msg.text, attachments: msg.attachments.length + (msg.download?.count ?? 0) }, 'message accepted');
  ctx.queue.pump();
  const position = isWaiting(turn.phase) ? ctx.queue.positionOf(turn) : undefined;
  turn.showedQueued = position !== undefined;
  turn.reply = t.delivery.open(msg.conversation, {
    recipient: msg.user,
    stopActionId: t.surface.capabilities.buttons ? turn.stopActionId : undefined,
    initialStatus: position !== undefined ? `queued: position ${position}` : undefined,
    notices: msg.notices,
    banner: first ? BANNER_NO_PERMISSION : undefined,
    onJournal: (j) => turn.ledger.journal(j),
    ...(resumed?.reuse ? { reuse: resumed.reuse } : {}),
  });
  if (msg.download) turn.files = fetchFiles(ctx, turn, msg.download);
  ctx.updateGauges();
  turn.done = executeTurn(ctx, turn);
}

/** Fetch the accepted turn's files while it waits; the turn awaits this before the agent starts. */
async function fetchFiles(ctx: BridgeContext, turn: Turn, download: NonNullable<InboundMessage['download']>): Promise<void> {
  try {
    // Into the conversation's own HOME, never a directory shared by all (conversation-files.ts).
    const places = conversationPlaces(ctx.config);
    const [dirs, staging] = await Promise.all([conversationDirs(places, turn.key), stagingDir(places)]);
    const fetched = await download.fetch(staging);
    const got = await placeFiles(fetched, staging, dirs, turn.log).catch(async (err: unknown) => {
      await fetched.cleanup();
      throw err;
    });
    turn.msg.attachments = [...turn.msg.attachments, ...got.attachments];
    const previous = turn.msg.cleanup;
    turn.msg.cleanup = async () => {
      await previous?.();
      await got.cleanup();
    };
    for (const n of got.notices) turn.reply?.addNotice(n);
  } catch (err) {
    turn.log.warn({ err }, 'attachments could not be fetched');
    turn.reply?.addNotice('The attached files could not be fetched; the message was sent without them.');
  }
}

/* Bridge commands: the whole message (after the bot mention), trimmed, any case. */
export type BridgeCommand = 'reset' | 'stop' | 'rules' | 'rules-clear';

const COMMANDS: Record<string, BridgeCommand> = {
  new: 'reset',
  reset: 'reset',
  '/new': 'reset',
  '/reset': 'reset',
  stop: 'stop',
  '/stop': 'stop',
  rules: 'rules',
  '/rules': 'rules',
  'rules clear': 'rules-clear',
  '/rules clear': 'rules-clear',
};

export function parseCommand(text: string, attachmentCount = 0): BridgeCommand | undefined {
  if (attachmentCount > 0) return undefined;
  return COMMANDS[text.trim().toLowerCase().replace(/\s+/g, ' ')];
}

/** `allow slack:U0123` (the whole message; admins only, checked by the caller): the identity written, else undefined. */
export function parseAllowCommand(text: string, attachmentCount = 0): string | undefined {
  if (attachmentCount > 0) return undefined;
  const m = /^\/?allow\s+(\S+)$/i.exec(text.trim());
  return m && /^(slack|discord|local):/i.test(m[1]!) ? m[1]! : undefined;
}
