/**
 * Crash recovery, at start-up before new events are served: everything the ledger says a
 * previous run of this replica showed and did not finish is finished now, through the same
 * delivery limiters as every reply. The same runs for another replica's ledger when that replica
 * is gone (replicas/takeover.ts, `holder` = its id): then its agent processes are ended when
 * they run on this host (same boot id and pid namespace), else left to it (it ends them when it
 * starts again) and its replies say so; its queued turns are re-homed here.
 *
 * - agent process groups still running are ended (only when pid AND start time match);
 * - open permission prompts show "expired" without buttons, and so do prompts that were being
 *   posted (write-ahead records): found on the platform by the id their buttons carry;
 * - live replies get their final edit ("interrupted: the bridge restarted", no Stop), native
 *   streams are stopped, 👀 becomes the failure reaction, and the author gets **Run again**;
 * - turns that were queued but never started run now, in order, reusing their "queued" message.
 *
 * Each step removes its record only after it landed, so a second crash during recovery simply
 * repeats the remaining steps (every step is safe to repeat).
 */
import type { JournalPart, MessageContent, MessageRef } from '../../chat.js';
import { endRecordedGroup, onThisHost } from '../../runner/index.js';
import type { LedgerRecord, QueuedTurnRecord } from '../../state/index.js';
import { acceptMessage } from './accept-message.js';
import type { BridgeContext } from './context.js';
import { INTERRUPTED_MESSAGE } from './execute-turn.js';
import { deliverOutbox } from './outbox.js';
import { returnStaged } from './outbox-files.js';
import { rerunActionId, RERUN_TTL_MS } from './rerun.js';
import { rebuildMessage } from './rebuild-message.js';

export interface RecoveryReport {
  agentsEnded: number;
  prompts: number;
  replies: number;
  /** Outboxes whose posting a crash cut short, finished (and ones left in staging, put back). */
  outboxes: number;
  queued: number;
  left: number;
  durationMs: number;
}

type ReplyRecord = Extract<LedgerRecord, { kind: 'reply' }>;

const isLive = (p: JournalPart): boolean => p.kind === 'part' && !!p.content && (!!p.content.status || !!p.content.stopActionId || !!p.content.thinking);

/** What the replies of a replica that went away say (its own restart says INTERRUPTED_MESSAGE). */
export const TAKEN_OVER_MESSAGE = 'interrupted: the bridge replica running it stopped';
/** Added to it when the taker ended the turn's agent (same host). */
export const AGENT_ENDED_NOTE = 'its agent was ended';
/** Added to it when the agent runs where the taker cannot end it: it ends when its replica starts again. */
export const agentElsewhereNote = (host: string): string => `its agent may still be running on ${host} until that replica starts again`;

/**
 * Whose ledger to recover: this replica's own (default, at start-up), or a departed replica's
 * (`holder` = its id), taken over by this one.
 */
export interface RecoverFor {
  holder: string;
}

export async function recover(ctx: BridgeContext, whose?: RecoverFor): Promise<RecoveryReport> {
  const started = ctx.now();
  const holder = whose?.holder ?? ctx.state.holder;
  const takeover = holder !== ctx.state.holder;
  const note = takeover
    ? { reply: TAKEN_OVER_MESSAGE, prompt: 'the bridge replica that asked stopped before anyone decided' }
    : { reply: INTERRUPTED_MESSAGE, prompt: 'the bridge restarted before anyone decided' };
  const log = ctx.logger.child({ component: 'recovery', ...(takeover ? { departed: holder } : {}) });
  // A store that fails reads as nothing left (the state logs it): recovery never blocks the start.
  const ledger = await ctx.state.ledger.all();
  const all = ledger.filter((r) => r.holder === holder);
  // Outboxes are staged on their replica's host: their records wait for it. Its agents are ended
  // here when they run on this host; the others wait for it too (step 1).
  const records = takeover ? all.filter((r) => r.kind !== 'outbox') : all;
  const convs = await ctx.state.queue.conversations();
  const queues: Array<{ key: string; items: QueuedTurnRecord[] }> = [];
  for (const key of convs) {
    const items = (await ctx.state.queue.list(key)).filter((i) => i.holder === holder);
    if (items.length) queues.push({ key, items });
  }
  const replies = new Map(records.filter((r): r is ReplyRecord => r.kind === 'reply').map((r) => [r.id, r]));
  // A turn whose reply says it started is not run again (it may have run): it is finalized instead.
  for (const q of queues) {
    const startedIds = q.items.filter((i) => replies.get(i.turnId)?.turn === 'running').map((i) => i.turnId);
    for (const id of startedIds) await ctx.state.queue.remove(q.key, id);
    q.items = q.items.filter((i) => !startedIds.includes(i.turnId));
  }
  const queuedIds = new Set(queues.flatMap((q) => q.items.map((i) => i.turnId)));
  const report: RecoveryReport = { agentsEnded: 0, prompts: 0, replies: 0, outboxes: 0, queued: 0, left: 0, durationMs: 0 };
  // Outboxes left in staging with no record (the crash came before their plan was written) go back.
  if (!takeover) {
    // Any replica's: replicas on one host may share the workspace root.
    const recorded = new Set(ledger.flatMap((r) => (r.kind === 'outbox' ? [r.staged] : [])));
    const staged = await returnStaged(ctx.config.agent.workspace, recorded).catch((err: unknown) => {
      log.error({ err }, 'could not look for outboxes left in staging');
      return { returned: [], left: [] };
    });
    report.outboxes += staged.returned.length;
    for (const path of staged.left) log.warn({ path }, 'an outbox left in staging could not go back (its conversation has one again): move its files yourself');
  }
  if (records.length === 0 && queues.length === 0) return report;
  log.info({ records: records.length, queuedTurns: queuedIds.size }, takeover ? 'recovering what a departed replica left' : 'recovering what the previous run left');

  const forget = (id: string) => ctx.state.ledger.remove(id);

  // 1. Agents first: nothing may go on writing while replies are finalized. A departed replica's
  // agent on another host (or in another pid namespace) cannot be signalled from here: its record
  // stays for that replica, and the reply says where it may still run.
  const agentNotes = new Map<string, string>();
  await Promise.all(records.filter((r) => r.kind === 'agent').map(async (r) => {
    if (takeover && !onThisHost(r.host)) {
      const where = r.host?.name ?? `the host of replica ${holder}`;
      log.warn({ pid: r.pid, turnId: r.turnId, host: r.host?.name ?? 'unknown' }, `a departed replica's agent runs on another host (${where}): it is not ended from here; it ends when that replica starts again, or end process group ${r.pid} there`);
      agentNotes.set(r.turnId, agentElsewhereNote(where));
      return;
    }
    const outcome = await endRecordedGroup(r.pid, r.startTime);
    if (outcome === 'ended') report.agentsEnded++;
    if (takeover && outcome === 'ended') agentNotes.set(r.turnId, AGENT_ENDED_NOTE);
    log.info({ pid: r.pid, turnId: r.turnId, outcome }, takeover ? 'agent process of the departed replica' : 'agent process of the previous run');
    await forget(r.id);
  }));

  // 2. Prompts and replies, all at once: the limiters pace them.
  await Promise.all([
    ...records.filter((r) => r.kind === 'prompt').map(async (r) => {
      const delivery = ctx.surfaces.get(r.platform)?.delivery;
      if (!delivery) return void report.left++;
      const ok = await delivery.rewritePrompt(r.ref, { ...r.view, state: 'expired', note: note.prompt });
      if (ok) {
        report.prompts++;
        await forget(r.id);
      } else report.left++;
    }),
    // Being posted when the crash came: the platform may show it though nothing recorded where.
    ...records.filter((r) => r.kind === 'posting').map(async (r) => {
      const delivery = ctx.surfaces.get(r.platform)?.delivery;
      if (!delivery) return void report.left++;
      const found = await delivery.findPosted(r.conversation, r.id);
      if (found.kind === 'failed') return void report.left++;
      if (found.kind === 'found') {
        if (!(await delivery.rewritePrompt(found.refs[0], { ...r.view, state: 'expired', note: note.prompt }))) return void report.left++;
        report.prompts++;
      }
      log.info({ promptId: r.id, found: found.kind }, 'a prompt that was being posted');
      await forget(r.id);
    }),
    ...[...replies.values()].filter((r) => !queuedIds.has(r.id)).map(async (r) => {
      const agentNote = agentNotes.get(r.id);
      if (await finalizeReply(ctx, r, agentNote ? `${note.reply}; ${agentNote}` : note.reply)) {
        report.replies++;
        await forget(r.id);
      } else report.left++;
    }),
  ]);

  // 2b. Outboxes being posted: what did not land is posted (looked for first), then they go back,
  // before any queued turn of their conversation runs.
  for (const r of records) {
    if (r.kind !== 'outbox') continue;
    if (await deliverOutbox(ctx, r, { look: true, log: log.child({ turnId: r.turnId }) })) report.outboxes++;
    else report.left++;
  }

  // 3. Queued turns never ran: run them now, in order, each conversation's queue as it was
  // (accepted again here, they are recorded under this replica). Not while this one drains: they
  // stay where they are for the next taker.
  for (const q of queues) {
    for (const item of q.items) {
      const attached = ctx.surfaces.get(item.message.platform);
      if (!attached || ctx.closing) {
        report.left++;
        continue;
      }
      const reply = replies.get(item.turnId);
      // Its "queued" message, recorded, or found by its marker when the crash came before the record.
      let reuse = reply?.journal.parts.find((p) => p.kind === 'part')?.ref;
      if (!reuse && reply) {
        const found = await unrecordedParts(ctx, reply);
        if (found !== 'failed') reuse = found[0];
      }
      const msg = rebuildMessage(ctx, item.message);
      log.info({ turnId: item.turnId, conversation: q.key }, takeover ? 'running a turn queued on the departed replica' : 'running a turn that was queued before the restart');
      await acceptMessage(ctx, msg, { turnId: item.turnId, ...(reuse ? { reuse } : {}) });
      report.queued++;
    }
  }
  report.durationMs = ctx.now() - started;
  log.info({ ...report }, 'recovery done');
  return report;
}

/**
 * Messages of the reply that the platform shows live but its journal does not hold (posted right
 * before the crash, the journal write lost; or a placeholder being retired), oldest first: found
 * by the marker their Stop button carries. 'failed' when the platform could not be asked.
 */
async function unrecordedParts(ctx: BridgeContext, r: ReplyRecord): Promise<MessageRef[] | 'failed'> {
  const delivery = ctx.surfaces.get(r.message.platform)?.delivery;
  if (!r.marker || !delivery) return [];
  const found = await delivery.findPosted(r.message.conversation, r.marker);
  if (found.kind === 'failed') return 'failed';
  if (found.kind === 'absent') return [];
  return found.refs.filter((ref) => !r.journal.parts.some((p) => p.ref.id === ref.id));
}

/** The final edits of one orphaned reply; true once all of them landed. */
async function finalizeReply(ctx: BridgeContext, r: ReplyRecord, status: string): Promise<boolean> {
  const attached = ctx.surfaces.get(r.message.platform);
  if (!attached) return false;
  const { surface, delivery } = attached;
  const found = await unrecordedParts(ctx, r);
  if (found === 'failed') return false;
  const unrecorded = found.at(-1);
  const live = r.journal.parts.filter(isLive);
  // The newest unrecorded message carries the status (what it showed is not known: it was posted
  // an instant before the crash, a placeholder below a prompt, say); older ones lose their Stop.
  const last = unrecorded ? undefined : live.at(-1);
  const rerunId = surface.capabilities.buttons ? rerunActionId(r.id) : undefined;
  const results: boolean[] = [];
  for (const p of r.journal.parts) {
    if (p.kind === 'stream') {
      // A streamed answer keeps what it shows; the control message above it carries the status.
      results.push(await delivery.stopStream(p.ref, last ? { text: '' } : { text: '', status, tone: 'warning' }));
      continue;
    }
    if (!isLive(p)) continue;
    const text = p.content?.text ?? '';
    let content: MessageContent = { text };
    if (p === last) {
      content = { text, status, tone: 'warning', ...(rerunId ? { rerunActionId: rerunId } : {}) };
      if (rerunId) {
        await ctx.state.reruns.put(rerunId, { message: r.message, author: r.author, ref: p.ref, content: { text, status, tone: 'warning' } }, RERUN_TTL_MS);
      }
    }
    results.push(await delivery.rewrite(p.ref, content));
  }
  for (const ref of found.slice(0, -1)) results.push(await delivery.rewrite(ref, { text: '' }));
  if (unrecorded) {
    const content: MessageContent = { text: '', status, tone: 'warning', ...(rerunId ? { rerunActionId: rerunId } : {}) };
    if (rerunId) {
      await ctx.state.reruns.put(rerunId, { message: r.message, author: r.author, ref: unrecorded, content: { text: '', status, tone: 'warning' } }, RERUN_TTL_MS);
    }
    results.push(await delivery.rewrite(unrecorded, content));
  }
  // Through delivery, as live turns react: paced by the same limiters (and the surface's own pacing).
  if (r.message.source) await delivery.react(r.message.source, 'failure');
  // Its agent is gone: a platform showing the thread as working (Slack's session) shows it idle.
  if (r.turn === 'running') await delivery.activity(r.message.conversation, 'idle');
  return results.every(Boolean);
}
