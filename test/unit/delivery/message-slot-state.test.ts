/**
 * A MessageSlot's life is one SlotLife value (message-slot-state.ts) changed only by nextLife:
 * every legal move, every refusal (the whole state × event table), then the slot itself going
 * through its states against the recording surface, with a real limiter pool on a fake clock.
 */
import type { MessageContent, MessageRef } from '../../../src/chat.js';
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createLimiterPool } from '../../../src/delivery/pacing/limiter-pool.js';
import { MessageSlot } from '../../../src/delivery/message/message-slot.js';
import { OUTPUT_END_HOLD_MS } from '../../../src/delivery/reply/live-reply.js';
import {
  canMoveEdit,
  nextLife,
  priorityOf,
  refOf,
  type EditStage,
  type SlotEvent,
  type SlotFailure,
  type SlotLife,
} from '../../../src/delivery/message/message-slot-state.js';
import type { DeliveryStats } from '../../../src/delivery/index.js';
import { TurnbridgeError } from '../../../src/errors.js';
import { createRecordingSurface, type RecordingSurface, type RecordingSurfaceOptions } from '../../fakes/recording-surface.js';
import { conv, flush, settleOnClock, useFakeClock } from './helpers.js';
import { logCapture } from '../../fakes/log-capture.js';

const ref: MessageRef = { id: 'm1', conversation: conv };
const failure: SlotFailure = { why: 'permanent', error: new Error('no such channel') };

const lives: Record<string, SlotLife> = {
  posting: { kind: 'posting', priority: 'live' },
  shown: { kind: 'shown', ref, priority: 'live' },
  'given-up (posted)': { kind: 'given-up', ref, priority: 'live', failure },
  'given-up (never posted)': { kind: 'given-up', priority: 'live', failure },
  removing: { kind: 'removing', ref },
  removed: { kind: 'removed', ref },
};

const events: Record<SlotEvent['type'], SlotEvent> = {
  posted: { type: 'posted', ref },
  'give-up': { type: 'give-up', failure },
  retry: { type: 'retry' },
  finalize: { type: 'finalize' },
  remove: { type: 'remove' },
  removed: { type: 'removed' },
  'remove-failed': { type: 'remove-failed' },
};

/** The whole table: what each event does in each state (the next state's kind, or refused). */
const TABLE: Record<string, Record<SlotEvent['type'], SlotLife['kind'] | 'refused'>> = {
  posting: { posted: 'shown', 'give-up': 'given-up', retry: 'refused', finalize: 'posting', remove: 'refused', removed: 'refused', 'remove-failed': 'refused' },
  shown: { posted: 'refused', 'give-up': 'given-up', retry: 'refused', finalize: 'shown', remove: 'removing', removed: 'refused', 'remove-failed': 'refused' },
  'given-up (posted)': { posted: 'refused', 'give-up': 'refused', retry: 'shown', finalize: 'given-up', remove: 'removing', removed: 'refused', 'remove-failed': 'refused' },
  'given-up (never posted)': { posted: 'refused', 'give-up': 'refused', retry: 'posting', finalize: 'given-up', remove: 'refused', removed: 'refused', 'remove-failed': 'refused' },
  removing: { posted: 'refused', 'give-up': 'removing', retry: 'refused', finalize: 'removing', remove: 'refused', removed: 'removed', 'remove-failed': 'shown' },
  removed: { posted: 'refused', 'give-up': 'refused', retry: 'refused', finalize: 'removed', remove: 'refused', removed: 'refused', 'remove-failed': 'refused' },
};

function apply(life: SlotLife, ...evs: SlotEvent[]): SlotLife {
  for (const e of evs) {
    const next = nextLife(life, e);
    assert.equal(typeof next, 'object', `${life.kind} refused ${e.type}: ${String(next)}`);
    life = next as SlotLife;
  }
  return life;
}

describe('message slot states (pure)', () => {
  test('every state × event: the legal moves land where the table says, the rest are refused with a reason', () => {
    for (const [name, life] of Object.entries(lives)) {
      for (const [type, event] of Object.entries(events)) {
        const next = nextLife(life, event);
        const want = TABLE[name]![type as SlotEvent['type']];
        if (want === 'refused') assert.equal(typeof next, 'string', `${name} + ${type} is refused`);
        else assert.equal(typeof next === 'string' ? `refused: ${next}` : next.kind, want, `${name} + ${type}`);
      }
    }
  });

  test('the ordinary life: posting -> shown -> removing -> removed, the message kept throughout', () => {
    let life: SlotLife = lives.posting!;
    assert.equal(refOf(life), undefined);
    life = apply(life, events.posted);
    assert.deepEqual(life, { kind: 'shown', ref, priority: 'live' });
    life = apply(life, events.remove);
    assert.deepEqual(life, { kind: 'removing', ref });
    life = apply(life, events.removed);
    assert.deepEqual(life, { kind: 'removed', ref });
    assert.equal(refOf(life), ref);
  });

  test('giving up keeps the message it had; a retry goes back to editing it, or to posting when there is none', () => {
    const edited = apply(lives.shown!, events['give-up']);
    assert.deepEqual(edited, { kind: 'given-up', ref, priority: 'live', failure });
    assert.deepEqual(apply(edited, events.retry), { kind: 'shown', ref, priority: 'live' });
    const never = apply(lives.posting!, events['give-up']);
    assert.equal(refOf(never), undefined);
    assert.deepEqual(apply(never, events.retry), { kind: 'posting', priority: 'live' });
    assert.match(nextLife(never, events.remove) as string, /never posted/);
  });

  test('finalize: live -> final priority, kept through posting, giving up and retrying, never back', () => {
    let life = apply(lives.posting!, events.finalize);
    assert.equal(priorityOf(life), 'final');
    life = apply(life, events['give-up'], events.retry, events.posted, events.finalize);
    assert.deepEqual(life, { kind: 'shown', ref, priority: 'final' });
    assert.equal(apply(life, events.finalize), life, 'a second finalize changes nothing');
  });

  test('a removal runs at final priority; when deleting fails the message is edited to the fallback at final priority', () => {
    const removing = apply(lives.shown!, events.remove);
    assert.equal(priorityOf(removing), 'final');
    assert.equal(apply(removing, events.finalize), removing);
    assert.deepEqual(apply(removing, events['remove-failed']), { kind: 'shown', ref, priority: 'final' });
  });

  test('an edit giving up while the removal waits for it leaves the removal in charge', () => {
    const removing = apply(lives.shown!, events.remove);
    assert.equal(apply(removing, events['give-up']), removing);
    assert.equal(apply(removing, events['give-up'], events.removed).kind, 'removed');
  });

  test('refusals say why', () => {
    assert.match(nextLife(lives.shown!, events.posted) as string, /only a message being posted/);
    assert.match(nextLife(lives.removing!, events.remove) as string, /already removing/);
    assert.match(nextLife(lives.removed!, events.remove) as string, /already removed/);
    assert.match(nextLife(lives.shown!, events.retry) as string, /only a message that gave up/);
    assert.match(nextLife(lives.removed!, events['give-up']) as string, /nothing is being sent/);
  });

  test('an edit in the limiter: queued -> sending or superseded, and nothing after', () => {
    const stages: EditStage[] = ['queued', 'sending', 'superseded'];
    const legal = stages.flatMap((from) => stages.filter((to) => canMoveEdit(from, to)).map((to) => `${from}->${to}`));
    assert.deepEqual(legal, ['queued->sending', 'queued->superseded']);
  });
});

const permanent = (what: string) => new TurnbridgeError('TB_PLATFORM_ERROR', what, { permanent: true });

/** A slot maker on a fake clock and a real limiter pool; `removes` records the deletions asked for. */
function rig(t: TestContext, opts: { remove?: (ref: MessageRef) => Promise<void>; delay?: RecordingSurfaceOptions['delay'] } = {}) {
  useFakeClock(t);
  const { logger, lines } = logCapture();
  const pool = createLimiterPool({ now: Date.now, logger });
  t.after(() => pool.stop());
  const surface: RecordingSurface = createRecordingSurface({ minEditIntervalMs: 0, delay: opts.delay });
  const removes: string[] = [];
  if (opts.remove) {
    const remove = opts.remove;
    Object.assign(surface, { remove: async (r: MessageRef) => { removes.push(r.id); await remove(r); } });
  }
  const stats: DeliveryStats = { posts: 0, edits: 0, rateLimitWaits: 0, parts: 0 };
  const slot = (content: MessageContent, after?: Promise<unknown>): MessageSlot => new MessageSlot({ surface, pool, conversation: conv, now: Date.now, logger, stats, minEditIntervalMs: 0 }, content, after);
  const refused = () => lines.filter((l) => l.msg === 'message slot change refused');
  return { surface, slot, removes, refused, stats };
}

describe('MessageSlot through its states', () => {
  test('a post refused for good gives up (no message); settle() posts it again', async (t) => {
    const r = rig(t);
    r.surface.failNext('post', 1, { error: permanent('no such channel') });
    const s = r.slot({ text: 'hello' });
    const [ok] = await settleOnClock(t, [s.settle()]);
    assert.equal(ok, false);
    assert.equal(s.ref, undefined);
    assert.equal(s.failure?.why, 'permanent');
    const [again] = await settleOnClock(t, [s.settle()]);
    assert.equal(again, true);
    assert.equal(await s.posted, true, 'the retry replaced the post that gave up');
    assert.equal(r.surface.visibleText(s.ref!), 'hello');
    assert.equal(s.failure, undefined);
    assert.equal(r.surface.callsOf('post').length, 2);
    assert.deepEqual(r.refused(), []);
  });

  test('edits that gave up keep the message; settle() edits it again, never posts a second one', async (t) => {
    const r = rig(t);
    const s = r.slot({ text: 'one' });
    await settleOnClock(t, [s.posted]);
    r.surface.failNext('edit', 1, { error: permanent('message too old') });
    s.set({ text: 'two' });
    const [ok] = await settleOnClock(t, [s.settle()]);
    assert.equal(ok, false);
    assert.equal(s.failure?.why, 'permanent');
    s.set({ text: 'three' }); // given up: nothing is sent until settle()
    await flush();
    assert.equal(r.surface.callsOf('edit').length, 1);
    const [again] = await settleOnClock(t, [s.settle()]);
    assert.equal(again, true);
    assert.equal(r.surface.visibleText(s.ref!), 'three');
    assert.equal(r.surface.callsOf('post').length, 1);
  });

  test('retire() deletes the message once; a second retire is refused (logged) and deletes nothing more', async (t) => {
    const r = rig(t, { remove: async () => {} });
    const s = r.slot({ text: 'control' });
    const [gone] = await settleOnClock(t, [s.retire({ text: '' })]);
    assert.equal(gone, true);
    assert.equal(s.removed, true);
    const [again] = await settleOnClock(t, [s.retire({ text: '' }), s.settle()]);
    assert.equal(again, true);
    assert.deepEqual(r.removes, [s.ref!.id], 'deleted once');
    assert.equal(r.surface.callsOf('edit').length, 0, 'a removed message is not edited');
    assert.deepEqual(r.refused().map((l) => [l.state, l.event]), [['removed', 'remove']]);
  });

  test('retire() of a slot whose post waits under the output-end hold does not wait out the hold', async (t) => {
    // The reply's output ended (holdLive) while the control message's post still waited (here for
    // the post before it; in the bench, for the limiter among 10 replies): retiring it is the
    // reply's final step, so the post goes and is deleted at once. It waited the whole 5 s hold,
    // and the reply's final text with it (Slack's "10 at once" p99 went from 0.6 s to 5 s).
    const r = rig(t, { remove: async () => {} });
    let before!: () => void;
    const s = r.slot({ text: 'control' }, new Promise<void>((resolve) => (before = resolve)));
    s.holdLive(OUTPUT_END_HOLD_MS);
    before();
    const [gone] = await settleOnClock(t, [s.retire({ text: '' })], 500);
    assert.equal(gone, true);
    assert.equal(s.removed, true);
    assert.deepEqual(r.removes, [s.ref!.id]);
    assert.deepEqual(r.refused(), []);
  });

  test('a live post under the hold still waits for it (the final state is about to come)', async (t) => {
    const r = rig(t);
    const s = r.slot({ text: 'working…' });
    s.holdLive(OUTPUT_END_HOLD_MS);
    await assert.rejects(settleOnClock(t, [s.posted], 1000), /not settled within 1000 ms/);
    assert.equal(r.surface.callsOf('post').length, 0);
    s.set({ text: 'done' }, true);
    const [ok] = await settleOnClock(t, [s.posted], 500);
    assert.equal(ok, true);
    assert.equal(r.surface.visibleText(s.ref!), 'done');
  });

  test('endHold(): a post waiting under the hold goes at once (the reply is finishing)', async (t) => {
    // LiveReply's finish ends the hold first: what finishing waits on (a stream's end, the part
    // above a prompt) may wait for such a post, and the final text waited out the 5 s with it.
    const r = rig(t);
    const s = r.slot({ text: 'working…' });
    s.holdLive(OUTPUT_END_HOLD_MS);
    await flush();
    assert.equal(r.surface.callsOf('post').length, 0, 'held');
    s.endHold();
    const [ok] = await settleOnClock(t, [s.posted], 500);
    assert.equal(ok, true);
  });

  test('deleting refused for good: the message is edited to the fallback and stays one of the reply', async (t) => {
    const r = rig(t, { remove: async () => { throw permanent('cannot delete'); } });
    const s = r.slot({ text: 'control' });
    const [ok] = await settleOnClock(t, [s.retire({ text: 'fallback' })]);
    assert.equal(ok, true);
    assert.equal(s.removed, false);
    assert.equal(r.surface.visibleText(s.ref!), 'fallback');
    s.set({ text: 'later' });
    await settleOnClock(t, [s.settle()]);
    assert.equal(r.surface.visibleText(s.ref!), 'later', 'after a failed removal the message is edited again');
    assert.deepEqual(r.refused(), []);
  });

  test('an edit that gives up while retire() waits for it: the deletion still runs and the slot ends removed', async (t) => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let hold = false;
    const r = rig(t, { remove: async () => {}, delay: (op) => (op === 'edit' && hold ? held : undefined) });
    const s = r.slot({ text: 'one' });
    await settleOnClock(t, [s.posted]);
    hold = true;
    r.surface.failNext('edit', 1, { error: permanent('gone wrong') });
    s.set({ text: 'two' });
    const waiting = s.settle();
    await flush();
    assert.equal(r.surface.inFlight, 1, 'the edit is in flight');
    const retired = s.retire({ text: '' });
    release();
    const [settled, gone] = await settleOnClock(t, [waiting, retired]);
    assert.equal(settled, false, 'the edit gave up');
    assert.equal(gone, true);
    assert.equal(s.removed, true, 'the removal, not the edit, decided the end');
    assert.deepEqual(r.removes, [s.ref!.id]);
    assert.deepEqual(r.refused(), []);
  });
});
