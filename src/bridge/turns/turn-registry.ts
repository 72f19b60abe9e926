/**
 * A turn's phase and the registry that holds it. TurnPhase is a turn's life as ONE value, changed
 * only by nextPhase(phase, event), which answers the next phase or a reason why the event is
 * refused (pure, so the table is tested on its own: test/unit/bridge/turn-registry.test.ts).
 * TurnRegistry holds every turn of this bridge by its Stop id and is the one place a turn's phase
 * changes: writers (accept-message, conversation-order, the queue's start(), stop-control,
 * execute-turn, shutdown) send it events; a refused event is logged on the turn's logger with the
 * reason, and nothing changes. Ended turns are remembered (bounded) so a late Stop click can say
 * "already finished". (A `new` / `reset` during a turn is seen through the shared reset mark in
 * the state, so that replicas see it too.)
 *
 * The phases, what each means and the events that move it: docs/architecture.md, "States".
 */
import type { UserRef } from '../../chat.js';
import { BoundedMap } from '../../bounded-map.js';
import type { Logger } from '../../log.js';

/** Why a turn is being stopped: a person (Stop / `stop`) or the bridge shutting down. */
export type StopCause = { kind: 'stopped'; by: UserRef } | { kind: 'interrupted' };

export type TurnPhase =
  | { kind: 'gated' }
  | { kind: 'queued' }
  | { kind: 'running' }
  /** `from`: where the stop found it (a running turn still holds its slot until the agent ended). */
  | { kind: 'stopping'; cause: StopCause; from: 'gated' | 'queued' | 'running' }
  | { kind: 'finishing'; cause?: StopCause }
  | { kind: 'done'; cause?: StopCause }
  | { kind: 'interrupted' };

export type TurnPhaseKind = TurnPhase['kind'];

export type TurnEvent =
  /** Several replicas: wait for the conversation's ticket before taking a slot. */
  | { type: 'gate' }
  /** The ticket was served (or Redis is away): the turn may take a slot. */
  | { type: 'ungate' }
  /** The queue gave it a slot. */
  | { type: 'start' }
  | { type: 'stop'; by: UserRef }
  /** The bridge is shutting down. */
  | { type: 'interrupt' }
  /** The agent's run ended (however it ended). */
  | { type: 'agent-ended' }
  /** Everything about the turn is over. */
  | { type: 'end' };

/** The next phase, or a string saying why `event` is refused in `phase`. */
export function nextPhase(phase: TurnPhase, event: TurnEvent): TurnPhase | string {
  const k = phase.kind;
  if (k === 'done' || k === 'interrupted') return `the turn is already over (${k})`;
  switch (event.type) {
    case 'gate':
      return k === 'queued' ? { kind: 'gated' } : `only a queued turn waits for a ticket (it is ${k})`;
    case 'ungate':
      return k === 'gated' ? { kind: 'queued' } : `the turn is not waiting for a ticket (it is ${k})`;
    case 'start':
      return k === 'queued' ? { kind: 'running' } : `only a queued turn can start (it is ${k})`;
    case 'stop':
      if (k === 'gated' || k === 'queued' || k === 'running') return { kind: 'stopping', cause: { kind: 'stopped', by: event.by }, from: k };
      return `a ${k} turn cannot be stopped`;
    case 'interrupt':
      if (k === 'gated' || k === 'queued' || k === 'running') return { kind: 'stopping', cause: { kind: 'interrupted' }, from: k };
      // shutdown wins over a Stop already pressed; a finishing turn has nothing left to interrupt
      if (k === 'stopping') return { ...phase, cause: { kind: 'interrupted' } };
      return phase;
    case 'agent-ended':
      if (k === 'running') return { kind: 'finishing' };
      if (k === 'stopping' && phase.from === 'running') return { kind: 'finishing', cause: phase.cause };
      return `no agent runs for a ${k === 'stopping' ? 'turn stopped before it started' : `${k} turn`}`;
    case 'end': {
      const cause = k === 'stopping' || k === 'finishing' ? phase.cause : undefined;
      if (cause?.kind === 'interrupted') return { kind: 'interrupted' };
      return cause ? { kind: 'done', cause } : { kind: 'done' };
    }
  }
}

/** Why the turn is being stopped (while stopping or finishing), if it is. */
export function stopCauseOf(phase: TurnPhase): StopCause | undefined {
  return phase.kind === 'stopping' || phase.kind === 'finishing' ? phase.cause : undefined;
}

/** Waiting to start (for a ticket or a slot). */
export function isWaiting(phase: TurnPhase): boolean {
  return phase.kind === 'gated' || phase.kind === 'queued';
}

/** Holds an agent slot in the local queue (running, or stopped while running and not yet ended). */
export function holdsSlot(phase: TurnPhase): boolean {
  return phase.kind === 'running' || (phase.kind === 'stopping' && phase.from === 'running');
}

export function isOver(phase: TurnPhase): boolean {
  return phase.kind === 'done' || phase.kind === 'interrupted';
}

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
