import type { ReplyOutcome } from '../../delivery/types.js';
import type { Attachment, PermissionDecision } from '../../protocol/types.js';
import { processHost, processStartTime } from '../../runner/index.js';
import type { RunResult } from '../../runner/types.js';
import { askPerson, recentOutput } from './ask-person.js';
import { sameAgentAs } from './use-profile.js';
import type { BridgeContext } from './context.js';
import { conversationDirs, conversationPlaces, type ConversationDirs } from './conversation-dirs.js';
import { sendOutbox, skippedNotices, takeTurnOutbox } from './outbox.js';
import { prepareOutbox } from './outbox-files.js';
import type { TurnActivity } from './conversation-activity.js';
import { routePlace } from './worktree.js';
import { releaseTicket } from './conversation-order.js';
import { holdsSlot, stopCauseOf } from './turn-registry.js';
import { createTurnReactions, type Turn } from './turn.js';
import { readUsage, usageLine } from './turn-usage.js';

function failedResult(error: string): RunResult {
  return { reply: '', sessionId: '', error, exitCode: 1, timedOut: false, cancelled: false, partials: [], notices: [], durationMs: 0 };
}

/** Session id saved as soon as it is seen (a crash mid-turn keeps it), unless `new` came since (`mark`). */
function sessionSaver(ctx: BridgeContext, turn: Turn, mark: string, author: string) {
  let saved = '';
  let stored = false;
  let saving: Promise<unknown> = Promise.resolve();
  return {
    save(sessionId: string): Promise<unknown> {
      if (!sessionId || saved) return saving;
      saved = sessionId;
      saving = ctx.state.resets.saveUnlessReset(turn.key, mark, async () => {
        stored = await ctx.state.sessions.set(turn.key, { sessionId, profile: turn.profilePath, author });
        if (stored) turn.log.info({ sessionId }, 'session saved');
        else turn.log.warn({ sessionId }, 'session not saved (store failure); the next message starts a new session');
      }).then((unchanged) => {
        if (!unchanged) turn.log.info('conversation was reset during the turn; not saving its session');
      });
      return saving;
    },
    get pending() {
      return saving;
    },
    get stored() {
      return stored;
    },
  };
}

/** Wait for a slot, run the agent, show the result, save the session, tidy up. */
export async function executeTurn(ctx: BridgeContext, turn: Turn): Promise<void> {
  const { msg, log } = turn;
  const reactions = createTurnReactions(turn.delivery, msg.source);
  // 👀 at once for a turn that waits (a slot, its files, another replica); else once its agent is spawned.
  if (turn.phase.kind !== 'running' || msg.download) reactions.working();
  let handedOver = false;
  // The turn's slot and its conversation: given back once, when its agent and outbox are done.
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    ctx.queue.done(turn);
    ctx.queue.pump();
    ctx.updateGauges();
  };
  let activity: TurnActivity | undefined;
  try {
    const got = await turn.slot;
    if (got === 'handed-over') {
      reactions.working();
      // The bridge drains: the turn stays queued in the ledger, its "queued" message and 👀 as
      // they are, for the replica that runs it (recovery.ts) to reuse.
      handedOver = true;
      log.info('turn left queued for another replica (or the next start)');
      return;
    }
    if (got === 'cancelled') {
      const outcome = cancelledOutcome(turn);
      const stats = await turn.finishReply(outcome);
      if (stats) ctx.metrics.deliveryStats(msg.platform, stats);
      ctx.metrics.turnFinished(outcome.kind);
      log.info({ outcome: outcome.kind }, 'turn cancelled before it started');
      reactions.end('failure');
      return;
    }
    await turn.files;
    turn.startedAt = ctx.now();
    await turn.ledger.started();
    const queueWaitMs = turn.startedAt - turn.enqueuedAt;
    ctx.metrics.queueWait(queueWaitMs);
    ctx.updateGauges();
    if (turn.showedQueued) turn.reply?.setStatus('working…');
    log.info({ queueWaitMs }, 'turn start');
    activity = ctx.activity.started(turn.key, msg.conversation, turn.delivery, { text: msg.text, author: msg.user });

    // The reset mark is asked for before the session (both calls go out in this order): a reset
    // between the two reads must count as after this turn's read, never as before it.
    const [mark, stored] = await Promise.all([ctx.state.resets.current(turn.key), ctx.state.sessions.get(turn.key)]);
    let sessionId = '';
    // The session of another profile starting the same agent carries over (`use`, an approved plan).
    if (stored && (stored.profile === turn.profilePath || (await sameAgentAs(ctx, stored.profile, turn.profile)))) sessionId = stored.session_id;
    else if (stored) log.info({ storedProfile: stored.profile }, 'stored session belongs to another profile; starting a new one');
    // The conversation stays its first author's (`new` / `reset` is theirs), whoever writes later.
    const saver = sessionSaver(ctx, turn, mark, stored?.author ?? (await ctx.state.conversations.author(turn.key)) ?? turn.owner);

    // Agent text pings no one unless the profile opts in (allow_mentions).
    const guard = createMentionGuard(turn.profile.allowMentions ? undefined : turn.surface.neutralizeMentions?.bind(turn.surface));
    let lastRole: string | undefined;
    const said = recentOutput();
    let result: RunResult;
    let dirs: (ConversationDirs & { outbox: string }) | undefined;
    try {
      dirs = await conversationDirs(conversationPlaces(ctx.config), turn.key).then(async (d) => ({ ...d, outbox: await prepareOutbox(d.workspace, ctx.config.agent.runAs) })).catch((err: unknown) => {
        log.error({ err }, 'the conversation\'s workspace, HOME or outbox could not be made');
        return undefined;
      });
      // The route's project, or the conversation's worktree of it (worktree.ts).
      const place = dirs ? await routePlace(ctx, turn.route, turn.key, dirs.workspace).catch((err: unknown) => {
        log.error({ err, workspace: turn.route?.workspace }, 'the conversation\'s worktree could not be made');
        return { error: (err as Error).message };
      }) : undefined;
      if (place && 'notice' in place && place.notice) turn.reply?.addNotice(place.notice);
      const where = place && 'cwd' in place ? place : undefined;
      result = !dirs ? failedResult('The bridge could not prepare this conversation\'s workspace. The operator can find the details in the bridge log.')
        : place && 'error' in place ? failedResult(`The worktree for this conversation could not be made: ${place.error}`) : await ctx.runTurn(
        // The route's project wins over the profile's own cwd.
        where ? { ...turn.profile, cwd: undefined } : turn.profile,
        { message: msg.text, sessionId: sessionId || undefined, sessionName: turn.key, attachments: msg.attachments as Attachment[] },
        {
          onPartial: (chunk) => {
            lastRole = chunk.role;
            said.push(chunk);
            const text = guard.push(chunk.text);
            if (text) turn.reply?.append({ ...chunk, text });
          },
          onSessionId: (id) => void saver.save(id),
          // Done writing: a live edit now would show the whole answer under "working…" until the
          // exit lets the final edit out (a busy budget makes that seconds); it waits for it instead.
          onOutputEnd: () => turn.reply?.outputEnded(),
          onStderr: (chunk) => log.debug({ stderr: chunk }, 'agent stderr'),
          onSpawn: (pid) => {
            log.debug({ pid }, 'agent spawned');
            // Recorded with its start time, so a restart ends it and never a reused pid.
            const startTime = processStartTime(pid);
            if (startTime !== undefined) turn.ledger.agent(pid, startTime, processHost());
            reactions.working();
          },
          onPermissionRequest: (request, at): Promise<PermissionDecision> => askPerson(ctx, turn, request, { ...at, said: said.take(), activity }),
        },
        { signal: turn.abort.signal, logger: log, launch: ctx.launchPolicy, dirs: { ...dirs, workspace: where?.cwd ?? dirs.workspace, shown: where?.shown ?? [], writable: where?.writable ?? [] }, ...(ctx.agentEnv ? { env: ctx.agentEnv } : {}) },
      );
    } catch (err) {
      log.error({ err }, 'runner failed unexpectedly');
      result = failedResult('The bridge could not run the agent. The operator can find the details in the bridge log.');
    }
    const held = guard.flush();
    if (held) turn.reply?.append({ text: held, ...(lastRole ? { role: lastRole } : {}) });
    result = { ...result, reply: guard.whole(result.reply), error: result.error === null ? null : guard.whole(result.error) };
    ctx.broker.expireTurn(turn.id);
    turn.ledger.agentEnded();
    await saver.save(result.sessionId);
    await saver.pending;
    ctx.turns.agentEnded(turn);
    activity.ended();

    for (const n of result.notices) turn.reply?.addNotice(n);
    const usage = readUsage(result.usage);
    const line = usage && (turn.route?.showUsage ?? ctx.config.showUsage) ? usageLine(usage) : '';
    const outcome: ReplyOutcome = { ...outcomeOf(turn, result), ...(line ? { footer: line } : {}) };
    // The agent's files (outbox.ts) go while the conversation is still this turn's (its next turn
    // waits), below the final reply; what was refused is named in the reply.
    const outbox = dirs ? await takeTurnOutbox(ctx, turn, dirs.workspace) : undefined;
    for (const line of outbox ? skippedNotices(outbox) : []) turn.reply?.addNotice(line);
    if (!outbox?.files.length) {
      if (outbox) await sendOutbox(ctx, turn, outbox, undefined);
      release();
    }

    const stats = await turn.finishReply(outcome);
    if (stats) ctx.metrics.deliveryStats(msg.platform, stats);
    ctx.metrics.turnFinished(outcome.kind, ctx.now() - turn.startedAt);
    reactions.end(outcome.kind === 'success' ? 'success' : 'failure');
    // A failed turn says why at warn (the agent's error, cut short), so a terminal shows it.
    const failed = outcome.kind === 'error' || outcome.kind === 'timeout';
    log[failed ? 'warn' : 'info'](
      {
        outcome: outcome.kind,
        ...(failed ? { error: outcome.message.length > 300 ? `${outcome.message.slice(0, 300)}…` : outcome.message } : {}),
        exitCode: result.exitCode,
        durationMs: ctx.now() - turn.startedAt,
        agentMs: result.durationMs,
        queueWaitMs,
        edits: stats?.edits,
        posts: stats?.posts,
        rateLimitWaits: stats?.rateLimitWaits,
        sessionSaved: saver.stored,
      },
      'turn end',
    );
    if (outbox?.files.length) {
      // The reply is final: its record goes, the outbox's record (written first) takes over.
      await turn.ledger.finished();
      await sendOutbox(ctx, turn, outbox, turn.reply?.messages.at(-1));
      release();
    }
  } catch (err) {
    log.error({ err }, 'turn failed in the bridge');
    reactions.working(); // as before: the turn was in hand, whatever failed after
    await turn.finishReply({ kind: 'error', message: 'The bridge failed while handling this turn.' });
  } finally {
    activity?.ended();
    if (holdsSlot(turn.phase) || !released) release();
    ctx.turns.end(turn);
    ctx.broker.expireTurn(turn.id);
    ctx.updateGauges();
    await releaseTicket(ctx, turn);
    await turn.files; // a download still running (turn stopped while waiting) lands before cleanup
    if (!handedOver) await turn.ledger.finished();
    if (msg.cleanup) await msg.cleanup().catch((err: unknown) => log.warn({ err }, 'attachment cleanup failed'));
  }
}

/* How a turn ended, as its live reply shows it. */

export const INTERRUPTED_MESSAGE = 'interrupted: the bridge restarted';

/** How a turn's run ended, as the live reply shows it. */
function outcomeOf(turn: Turn, result: RunResult): ReplyOutcome {
  if (result.cancelled) return cancelledOutcome(turn);
  if (result.timedOut) return { kind: 'timeout', message: result.error ?? 'the agent took too long and was stopped' };
  if (result.error !== null) return { kind: 'error', message: result.error };
  return { kind: 'success', reply: result.reply };
}

/** Outcome of a turn stopped or interrupted (before it ran, or while it ran). */
function cancelledOutcome(turn: Turn): ReplyOutcome {
  const cause = stopCauseOf(turn.phase);
  if (cause?.kind === 'interrupted') return { kind: 'interrupted', message: INTERRUPTED_MESSAGE };
  return { kind: 'stopped', by: cause?.by };
}

/*
 * Agent text on its way to a Surface that can ping people: every piece goes through the
 * Surface's neutralizeMentions. A piece ending in `<` keeps that `<` back until the next piece
 * (a mention token split over two partials is still caught).
 */
export interface MentionGuard {
  /** The part of `text` that can be shown now. */
  push(text: string): string;
  /** What was held back (at the end of the stream). */
  flush(): string;
  /** Neutralise one whole text (the final reply, an error). */
  whole(text: string): string;
}

export function createMentionGuard(neutralize: ((text: string) => string) | undefined): MentionGuard {
  if (!neutralize) return { push: (t) => t, flush: () => '', whole: (t) => t };
  let held = '';
  return {
    push(text) {
      const all = held + text;
      held = all.endsWith('<') ? '<' : '';
      return neutralize(held ? all.slice(0, -1) : all);
    },
    flush() {
      const out = held;
      held = '';
      return out ? neutralize(out) : '';
    },
    whole: (text) => neutralize(text),
  };
}
