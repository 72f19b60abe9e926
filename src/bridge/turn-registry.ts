/**
 * TurnRegistry: every turn this bridge holds, by its Stop id, and the one place a turn's phase
 * (turn-phase.ts) changes. Writers (accept-message, conversation-order, the queue's start(),
 * stop-control, execute-turn, shutdown) send it events; a refused event is logged on the turn's
 * logger with the reason, and nothing changes. Ended turns are remembered (bounded) so a late
 * Stop click can say "already finished". (A `new` / `reset` during a turn is seen through the
 * shared reset mark, session-resets.ts, so that replicas see it too.)
 */
import { BoundedMap } from '../bounded-map.js';
import type { UserRef } from '../delivery/surface.js';
import type { Logger } from '../log.js';
import { holdsSlot, isOver, isWaiting, nextPhase, type TurnEvent, type TurnPhase, type TurnPhaseKind } from './turn-phase.js';

/** What the registry needs of a turn: its ids, its logger and the phase it alone writes. */
export interface PhasedTurn {
  readonly key: string;
  readonly stopActionId: string;
  readonly log: Logger;
  readonly phase: TurnPhase;
}

export interface TurnRegistry<T extends PhasedTurn> {
  /** The turn was accepted: it is held (and can be found by its Stop id) until `end`. */
  admit(turn: T): void;
  /** The held turn with this Stop id. */
  get(stopActionId: string): T | undefined;
  /** A turn with this Stop id ended recently. */
  ended(stopActionId: string): boolean;
  /** Every held turn, in arrival order. */
  all(): T[];
  /** The conversation's running (or stopping) turn, else its oldest waiting (or stopped while waiting) one: the `stop` command. */
  stoppable(key: string): T | undefined;
  /** How many held turns are in each phase. */
  counts(): Partial<Record<TurnPhaseKind, number>>;
  /** Apply `event`; false (logged with the reason) when the turn's phase refuses it. */
  apply(turn: T, event: TurnEvent): boolean;
  gate(turn: T): boolean;
  ungate(turn: T): boolean;
  start(turn: T): boolean;
  stop(turn: T, by: UserRef): boolean;
  interrupt(turn: T): boolean;
  agentEnded(turn: T): boolean;
  /** The turn is over: no longer held, remembered as ended. */
  end(turn: T): boolean;
}

export function createTurnRegistry<T extends PhasedTurn>(opts: { rememberEnded?: number } = {}): TurnRegistry<T> {
  const held = new Map<string, T>();
  const ended = new BoundedMap<string, true>(opts.rememberEnded ?? 5000);

  const registry: TurnRegistry<T> = {
    admit(turn) {
      if (held.has(turn.stopActionId)) return;
      held.set(turn.stopActionId, turn);
    },
    get: (id) => held.get(id),
    ended: (id) => ended.has(id),
    all: () => [...held.values()],
    stoppable(key) {
      let waiting: T | undefined;
      for (const t of held.values()) {
        if (t.key !== key) continue;
        if (holdsSlot(t.phase)) return t;
        // one stopped while waiting stays the answer until it is gone: a second `stop` stops nothing more
        if (!waiting && (isWaiting(t.phase) || (t.phase.kind === 'stopping' && t.phase.from !== 'running'))) waiting = t;
      }
      return waiting;
    },
    counts() {
      const out: Partial<Record<TurnPhaseKind, number>> = {};
      for (const t of held.values()) out[t.phase.kind] = (out[t.phase.kind] ?? 0) + 1;
      return out;
    },
    apply(turn, event) {
      const next = nextPhase(turn.phase, event);
      if (typeof next === 'string') {
        turn.log.warn({ phase: turn.phase.kind, event: event.type, reason: next }, 'turn transition refused');
        return false;
      }
      // the one write of a turn's phase
      (turn as { phase: TurnPhase }).phase = next;
      if (isOver(next)) {
        held.delete(turn.stopActionId);
        ended.set(turn.stopActionId, true);
      }
      return true;
    },
    gate: (turn) => registry.apply(turn, { type: 'gate' }),
    ungate: (turn) => registry.apply(turn, { type: 'ungate' }),
    start: (turn) => registry.apply(turn, { type: 'start' }),
    stop: (turn, by) => registry.apply(turn, { type: 'stop', by }),
    interrupt: (turn) => registry.apply(turn, { type: 'interrupt' }),
    agentEnded: (turn) => registry.apply(turn, { type: 'agent-ended' }),
    end: (turn) => registry.apply(turn, { type: 'end' }),
  };
  return registry;
}
