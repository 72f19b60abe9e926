/**
 * Files back from the agent (docs/profiles.md, "Files back to the chat"): what the agent leaves in
 * its conversation's `outbox/` during a turn is posted to the thread when the turn ends, below the
 * reply, then moved to `outbox/sent/`; what is refused is named in the reply with why and moved to
 * `outbox/skipped/`. The disk side (the outbox taken out of the agent's reach, the checks, safe
 * names) is outbox-files.ts; this is the turn's side.
 *
 * Crash safety, as for the replies' "being posted" records: before the first message of files
 * can be seen, the whole plan (which files go in which message, each with its marker) is in the
 * ledger, every message `pending`; each is marked `posted` once it landed. A kill -9 between a
 * post and its mark leaves it pending: recovery (deliverOutbox with `look`) asks the platform
 * first (Delivery.findFiles) and posts only what is not there. The outbox goes back and the record
 * goes only after every message is settled, so a file is neither lost nor posted twice.
 */
import { basename } from 'node:path';
import type { MessageRef } from '../../chat.js';
import type { FilesPosted, OutgoingFile } from '../../delivery/index.js';
import { groupFiles } from '../../delivery/index.js';
import type { Logger } from '../../log.js';
import type { LedgerRecord, OutboxPostRecord } from '../../state/index.js';
import type { BridgeContext } from './context.js';
import { outboxStaging, readOutboxFile, settleOutbox, stagedName, takeOutbox, type OutboxSnapshot } from './outbox-files.js';
import type { Turn } from './turn.js';

export type OutboxRecord = Extract<LedgerRecord, { kind: 'outbox' }>;

/** How a platform is named in a reason ("over Discord's limit of 10 MiB here"). */
const PLATFORM_NAMES: Record<string, string> = { slack: 'Slack', discord: 'Discord', local: 'the local page' };

/** Refused files named in a reply at most; the rest are counted. */
const MAX_NAMED = 10;

/**
 * At the turn's end, while the conversation is still the turn's: take its outbox out of the
 * agent's reach and see what may go (outbox-files.ts). Undefined: nothing to post or refuse, or
 * `limits.outbox_files: 0` (the outbox is left as it is).
 */
export async function takeTurnOutbox(ctx: BridgeContext, turn: Turn, conversationDir: string): Promise<OutboxSnapshot | undefined> {
  const { limits, agent } = ctx.config;
  if (limits.outboxFiles === 0) return undefined;
  try {
    return await scanTurnOutbox(ctx, turn, conversationDir);
  } catch (err) {
    // Logged, and the turn goes on: the outbox stays where it is (in staging: the next start puts it back).
    turn.log.error({ err }, 'the outbox could not be read');
    return undefined;
  }
}

async function scanTurnOutbox(ctx: BridgeContext, turn: Turn, conversationDir: string): Promise<OutboxSnapshot | undefined> {
  const { limits, agent } = ctx.config;
  const conversation = turn.msg.conversation;
  const platform = turn.surface.fileLimits?.(conversation);
  const snapshot = await takeOutbox(conversationDir, outboxStaging(agent.workspace), stagedName(basename(conversationDir), turn.id), {
    maxFiles: limits.outboxFiles,
    maxFileBytes: limits.outboxBytes,
    ...(platform ? { platform: { maxFileBytes: platform.maxFileBytes, name: PLATFORM_NAMES[turn.surface.platform] ?? turn.surface.platform } } : {}),
    ...(agent.runAs ? { ownerUid: agent.runAs.uid } : {}),
  });
  if (snapshot && !turn.surface.postFiles) {
    // A chat that takes no files: each is refused by name, none is lost (skipped/ keeps them).
    snapshot.skipped.push(...snapshot.files.map((f) => ({ entry: f.entry, shown: f.name, reason: 'this chat takes no files from the bridge' })));
    snapshot.files = [];
  }
  return snapshot;
}

/** The reply's lines for what was not sent. */
export function skippedNotices(snapshot: OutboxSnapshot): string[] {
  const lines = snapshot.skipped.slice(0, MAX_NAMED).map((s) => `_Not sent from outbox/: ${s.shown ? `\`${s.shown}\`` : 'a file'}: ${s.reason}._`);
  if (snapshot.skipped.length > MAX_NAMED) lines.push(`_…and ${snapshot.skipped.length - MAX_NAMED} more not sent (see outbox/skipped/)._`);
  return lines;
}

/**
 * Post the outbox's files below the reply (after `after`, its last message): the plan goes into
 * the ledger first, then deliverOutbox. An outbox with nothing to send just goes back.
 */
export async function sendOutbox(ctx: BridgeContext, turn: Turn, snapshot: OutboxSnapshot, after: MessageRef | undefined): Promise<void> {
  try {
    await postSnapshot(ctx, turn, snapshot, after);
  } catch (err) {
    turn.log.error({ err, staged: snapshot.staged }, 'the outbox could not be posted (the next start puts it back)');
  }
}

async function postSnapshot(ctx: BridgeContext, turn: Turn, snapshot: OutboxSnapshot, after: MessageRef | undefined): Promise<void> {
  if (snapshot.files.length === 0) {
    const back = await settleOutbox(snapshot, { sent: [], skipped: snapshot.skipped.map((s) => s.entry) });
    if (!back) turn.log.warn({ staged: snapshot.staged }, 'the outbox could not go back to its conversation (something took its place): it is kept in staging');
    return;
  }
  const conversation = turn.msg.conversation;
  const limits = turn.surface.fileLimits?.(conversation) ?? { maxFiles: 10, maxMessageBytes: ctx.config.limits.outboxBytes, maxFileBytes: ctx.config.limits.outboxBytes };
  const record: OutboxRecord = {
    kind: 'outbox', id: `outbox:${turn.id}`, turnId: turn.id, holder: ctx.state.holder, platform: turn.msg.platform, conversation,
    staged: snapshot.staged, home: snapshot.home, ...(after ? { after } : {}),
    ...(ctx.config.agent.runAs ? { ownerUid: ctx.config.agent.runAs.uid } : {}),
    posts: groupFiles(snapshot.files, limits).map((files) => ({ marker: `tb-files-${ctx.idFactory()}`, files, state: 'pending' })),
    skipped: snapshot.skipped.map((s) => s.entry),
  };
  await ctx.state.ledger.put(record);
  await deliverOutbox(ctx, record, { look: false, log: turn.log });
}

/** Read one message's files again, checked (a file swapped since the scan is refused). */
async function readPost(record: OutboxRecord, post: OutboxPostRecord): Promise<OutgoingFile[]> {
  return Promise.all(post.files.map(async (f) => ({ name: f.name, mimeType: f.mimeType, data: await readOutboxFile(record, f, record.ownerUid) })));
}

/**
 * Post what is pending of an outbox record, mark each message as it lands, then move the posted
 * files to sent/ (and the refused ones to skipped/), put the outbox back and forget the record.
 * `look`: first ask the platform for each pending message (crash recovery: it may have landed
 * unrecorded). Resolves false when the record must stay for a later try (the platform could not
 * be asked, or the platform is not attached).
 */
export async function deliverOutbox(ctx: BridgeContext, record: OutboxRecord, opts: { look: boolean; log: Logger }): Promise<boolean> {
  const delivery = ctx.surfaces.get(record.platform)?.delivery;
  if (!delivery) return false;
  const { conversation } = record;
  const save = () => ctx.state.ledger.put(record);
  const problems: string[] = [];
  for (const post of record.posts) {
    if (post.state !== 'pending') continue;
    const names = post.files.map((f) => f.name);
    const query = { marker: post.marker, ...(record.after ? { after: record.after } : {}), names };
    if (opts.look) {
      const found = await delivery.findFiles(conversation, query);
      if (found === 'failed') return false;
      opts.log.info({ marker: post.marker, files: names.length, found }, 'a message of files that was being posted');
      if (found === 'found') {
        post.state = 'posted';
        await save();
        continue;
      }
    }
    let files: OutgoingFile[];
    try {
      files = await readPost(record, post);
    } catch (err) {
      post.state = 'refused';
      problems.push(`${names.map((n) => `\`${n}\``).join(', ')}: ${(err as Error).message}`);
      await save();
      continue;
    }
    const r: FilesPosted = await delivery.postFiles(conversation, { files, caption: names.join(' · '), marker: post.marker, ...(record.after ? { after: record.after } : {}) });
    if (r.ok) {
      post.state = 'posted';
    } else {
      // Refused for good (too large for the platform, no permission): to skipped/. Given up on
      // failures: the files stay in outbox/ and go with the conversation's next turn.
      post.state = r.why === 'permanent' || r.why === 'unsupported' ? 'refused' : 'kept';
      problems.push(`${names.map((n) => `\`${n}\``).join(', ')}: ${r.detail}${post.state === 'kept' ? ' (kept in outbox/ for the next turn)' : ''}`);
      opts.log.warn({ files: names, why: r.why, detail: r.detail }, 'could not post files of the outbox');
    }
    await save();
  }
  if (problems.length) await delivery.say(conversation, `Could not post from outbox/: ${problems.join('; ')}`, 'warning');
  const entries = (state: OutboxPostRecord['state']) => record.posts.filter((p) => p.state === state).flatMap((p) => p.files.map((f) => f.entry));
  const back = await settleOutbox(record, { sent: entries('posted'), skipped: [...record.skipped, ...entries('refused')] });
  if (!back) opts.log.warn({ staged: record.staged, home: record.home }, 'the outbox could not go back to its conversation (something took its place): it is kept in staging');
  await ctx.state.ledger.remove(record.id);
  return true;
}
