/**
 * ReplyParts: the messages one live reply is made of, in thread order. The post + edit messages
 * (MessageSlots) and the natively streamed messages (a StreamLane's refs, after `streamAt`
 * slots), the ones being deleted, and the chain that keeps each new post after the previous one.
 * It knows nothing of modes: LiveReply decides what goes where.
 */
import type { JournalPart, MessageContent, MessageRef } from '../../chat.js';
import { MessageSlot, type SlotDeps } from '../message/index.js';

export class ReplyParts {
  /** The post + edit messages, in thread order (a streamed reply's control message too once it holds answer text). */
  readonly slots: MessageSlot[] = [];
  /** Slots deleted or being deleted: not settled at the end, not in `messages`. */
  private readonly retiring = new Set<MessageSlot>();
  private readonly retirements: Array<Promise<boolean>> = [];
  /** Messages the answer streamed into (kept when the lane falls back). */
  private streamed: readonly MessageRef[] = [];
  /** The streamed messages come after this many slots. */
  private streamAt = 0;
  /** The next post waits for this one (the thread keeps its order). */
  private after: Promise<unknown> | undefined;

  constructor(
    private readonly slotDeps: SlotDeps,
    /** The first message of the reply reuses a message posted before a restart (at most once). */
    private reuse: MessageRef | undefined,
  ) {}

  /** A message posted before a restart, handed out once. */
  takeReuse(): MessageRef | undefined {
    const r = this.reuse;
    this.reuse = undefined;
    return r;
  }

  /** A message that is not (yet) one of the slots: a streamed reply's control message. Later posts follow it. */
  detached(content: MessageContent): MessageSlot {
    const slot = new MessageSlot(this.slotDeps, content, undefined, this.takeReuse());
    this.after = slot.posted;
    return slot;
  }

  /**
   * Post a new message below the others; `final`: it already shows the reply's final state.
   * `after`: the post waits for this too (default: only for the previous post).
   */
  add(content: MessageContent, final = false, after?: Promise<unknown>): MessageSlot {
    const slot = new MessageSlot(this.slotDeps, content, after ? Promise.all([this.after, after.catch(() => undefined)]) : this.after, this.takeReuse());
    if (final) slot.set(content, true);
    this.adopt(slot);
    return slot;
  }

  /** `slot` (the control message) becomes the last of the slots. */
  adopt(slot: MessageSlot): void {
    if (this.slots.includes(slot)) return;
    this.slots.push(slot);
    this.after = slot.posted;
  }

  /** Put `slot` back at position `at` (a control message frozen above what was posted below it). */
  insertAt(slot: MessageSlot, at: number): void {
    if (!this.slots.includes(slot)) this.slots.splice(at, 0, slot);
  }

  /** Delete `slot` (or, where that fails, make it show `fallback`); resolves when it is gone or shows it. */
  retire(slot: MessageSlot, fallback: MessageContent): Promise<boolean> {
    this.retiring.add(slot);
    const done = slot.retire(fallback);
    this.retirements.push(done);
    return done;
  }

  /** New posts no longer wait for earlier ones (the stream ended and everything before it landed). */
  unchain(): void {
    this.after = Promise.resolve();
  }

  /** The streamed messages of `refs` (a lane's, live array) follow the slots there are now. */
  streamHere(refs: readonly MessageRef[], at = this.slots.length): void {
    this.streamed = refs;
    this.streamAt = at;
  }

  /** The last slot: the one that shows status, thinking and Stop in post + edit. */
  get live(): MessageSlot {
    return this.slots[this.slots.length - 1]!;
  }

  get count(): number {
    return this.slots.length;
  }

  get messages(): MessageRef[] {
    const refs = (list: MessageSlot[]): MessageRef[] => list.filter((s) => s.ref !== undefined && !this.retiring.has(s)).map((s) => s.ref!);
    return [...refs(this.slots.slice(0, this.streamAt)), ...this.streamed, ...refs(this.slots.slice(this.streamAt))];
  }

  /** What the ledger records: every message that landed and what it shows, in thread order. */
  journal(control: MessageSlot | undefined): JournalPart[] {
    const part = (slot: MessageSlot): JournalPart[] =>
      slot.ref && !this.retiring.has(slot) && !slot.removed ? [{ kind: 'part', ref: slot.ref, ...(slot.shown ? { content: slot.shown } : {}) }] : [];
    return [
      ...(control && !this.slots.includes(control) ? part(control) : []),
      ...this.slots.slice(0, this.streamAt).flatMap(part),
      ...this.streamed.map((ref): JournalPart => ({ kind: 'stream', ref })),
      ...this.slots.slice(this.streamAt).flatMap(part),
    ];
  }

  /** Land every slot's final state (in order) and wait for the deletions; false when a final text did not land. */
  async settle(): Promise<boolean> {
    let landed = true;
    for (const slot of this.slots) {
      if (this.retiring.has(slot)) continue;
      await slot.posted;
      if (!(await slot.settle())) landed = false;
    }
    await Promise.all(this.retirements);
    return landed;
  }

  /** Messages the reply ended up in. */
  get parts(): number {
    return this.streamed.length + this.slots.filter((s) => s.ref !== undefined && !this.retiring.has(s)).length;
  }
}
