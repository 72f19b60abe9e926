import type { SourceMessageRef } from '../../chat.js';
import type { RouteConfig } from '../../config/types.js';
import type { Surface } from '../../delivery/surface.js';
import type { Delivery, DeliveryStats, LiveReply, ReplyOutcome } from '../../delivery/types.js';
import type { Logger } from '../../log.js';
import type { Profile } from '../../profile/index.js';
import type { Ticket } from '../../replicas/index.js';
import type { InboundMessage } from '../types.js';
import type { QueueEntry } from './turn-queue.js';
import type { TurnPhase, TurnRegistry } from './turn-registry.js';
import type { TurnLedger } from '../../state/index.js';

export type SlotOutcome = 'granted' | 'cancelled' | 'handed-over';

/** One accepted message on its way through the queue, the runner and the live reply. */
export interface Turn extends QueueEntry {
  readonly id: string;
  readonly key: string;
  /** `platform:id` of the author (per-person limits). */
  readonly owner: string;
  readonly msg: InboundMessage;
  readonly surface: Surface;
  readonly delivery: Delivery;
  readonly profilePath: string;
  readonly profile: Profile;
  /** The route that picked the profile (approvers, approval timeout); absent = the default profile. */
  readonly route?: RouteConfig;
  readonly stopActionId: string;
  readonly log: Logger;
  readonly enqueuedAt: number;
  readonly abort: AbortController;
  /** Its records in the ledger and the queue (crash recovery). */
  readonly ledger: TurnLedger;
  /** Where the turn is in its life (turn-registry.ts); written only by the TurnRegistry. */
  readonly phase: TurnPhase;
  /** The message's files, fetched after the turn was accepted (see InboundMessage.download). */
  files?: Promise<void>;
  /** Several replicas: the conversation's ticket, taken on arrival (undefined: no gate, or Redis away). */
  ticket?: Promise<Ticket | undefined>;
  /** Several replicas: waiting (without a slot) for earlier turns of the conversation elsewhere (phase 'gated'). */
  readonly gated: boolean;
  reply?: LiveReply;
  startedAt?: number;
  /** The reply showed a "queued" status (so "working…" must replace it at start). */
  showedQueued: boolean;
  /**
   * How the wait for a slot ended: it got one; it was cancelled (Stop, `stop`); or the bridge is
   * draining and leaves it, still queued in the shared ledger, for another replica (or its own
   * next start) to run.
   */
  readonly slot: Promise<SlotOutcome>;
  /** Cancel while waiting (resolves `slot` 'cancelled'). */
  cancelWaiting(): void;
  /** Draining: leave the waiting turn in the ledger for whoever runs it next (resolves `slot` 'handed-over'). */
  handOver(): void;
  /** Finish the live reply once; later calls get the first call's result. */
  finishReply(outcome: ReplyOutcome): Promise<DeliveryStats | undefined>;
  /** Resolves when everything about the turn is over (reply finished, cleanup done). */
  done: Promise<void>;
}

export interface NewTurn {
  id: string;
  key: string;
  msg: InboundMessage;
  surface: Surface;
  delivery: Delivery;
  profilePath: string;
  profile: Profile;
  route?: RouteConfig;
  stopActionId: string;
  log: Logger;
  enqueuedAt: number;
  ledger: TurnLedger;
  /** Where its phase changes (the queue's start() goes through it). */
  registry: TurnRegistry<Turn>;
  onPosition(turn: Turn, position: number): void;
}

export function createTurn(init: NewTurn): Turn {
  let grant!: (outcome: SlotOutcome) => void;
  const slot = new Promise<SlotOutcome>((r) => (grant = r));
  let finishing: Promise<DeliveryStats | undefined> | undefined;
  const turn: Turn = {
    id: init.id,
    key: init.key,
    owner: `${init.msg.platform}:${init.msg.user.id}`,
    msg: init.msg,
    surface: init.surface,
    delivery: init.delivery,
    profilePath: init.profilePath,
    profile: init.profile,
    ...(init.route ? { route: init.route } : {}),
    stopActionId: init.stopActionId,
    log: init.log,
    enqueuedAt: init.enqueuedAt,
    abort: new AbortController(),
    ledger: init.ledger,
    phase: { kind: 'queued' },
    get gated() {
      return turn.phase.kind === 'gated';
    },
    showedQueued: false,
    slot,
    done: Promise.resolve(),
    start() {
      // the queue counts it as running now: it runs even if the registry refused (that is logged)
      init.registry.start(turn);
      grant('granted');
    },
    onPosition(position) {
      init.onPosition(turn, position);
    },
    cancelWaiting() {
      grant('cancelled');
    },
    handOver() {
      grant('handed-over');
    },
    finishReply(outcome) {
      if (!finishing) {
        const reply = turn.reply;
        finishing = reply
          ? reply.finish(outcome).catch((err: unknown) => {
              turn.log.error({ err }, 'could not finish the live reply');
              return undefined;
            })
          : Promise.resolve(undefined);
      }
      return finishing;
    },
  };
  return turn;
}

/*
 * The reactions a turn shows on the person's message: 👀 while it is in hand, then ✅ or ❌.
 *
 * 👀 must not hold up the agent's start. On Discord a reaction has no budget of ours, so
 * delivery makes the REST call at once: sent before the spawn, its request (and the platform
 * answering it) ran in the middle of the turn's own start (issue 15, bench/bridge.bench.ts). So a
 * turn that starts at once shows 👀 once its agent is spawned; a turn that has to wait (for a
 * slot, for its files, for another replica) shows it at once. Every path that ends a turn shows
 * 👀 first if it is still held, and the reactions go out one after the other, so the end state is
 * the same as when 👀 went first: ✅ or ❌ alone.
 */
export interface TurnReactions {
  /** Show 👀 now unless it was shown already. */
  working(): void;
  /** Show the end state (after 👀, which goes first if still held). */
  end(state: 'success' | 'failure'): void;
}

export function createTurnReactions(delivery: Pick<Delivery, 'react'>, source: SourceMessageRef | undefined): TurnReactions {
  let working: 'held' | 'shown' = 'held';
  let chain: Promise<void> = Promise.resolve();
  const send = (state: 'working' | 'success' | 'failure') => {
    if (!source) return;
    // delivery.react logs its failures and never rejects; the catch only keeps the chain going.
    chain = chain.then(() => delivery.react(source, state)).catch(() => {});
  };
  const reactions: TurnReactions = {
    working() {
      if (working === 'shown') return;
      working = 'shown';
      send('working');
    },
    end(state) {
      reactions.working();
      send(state);
    },
  };
  return reactions;
}
