/**
 * A turn's life as ONE value, and the only way it changes: nextPhase(phase, event) answers the
 * next phase, or a reason why the event is refused in this phase (the registry logs it and
 * changes nothing). Pure, so the table is tested on its own (test/unit/bridge/turn-phase.test.ts).
 *
 * | phase       | means                                                             | events that move it                      |
 * |-------------|-------------------------------------------------------------------|------------------------------------------|
 * | gated       | accepted; waits (without a slot) for the conversation's ticket     | ungate → queued; stop, interrupt → stopping; end |
 * | queued      | waits for an agent slot here                                      | start → running; gate; stop, interrupt → stopping; end |
 * | running     | holds a slot; the agent runs                                      | stop, interrupt → stopping; agent-ended → finishing; end |
 * | stopping    | Stop or shutdown: the agent is aborted / the wait cancelled       | interrupt (shutdown wins); agent-ended → finishing; end |
 * | finishing   | the agent ended; the reply's final state is being written         | end → done / interrupted                 |
 * | done        | over (answered, failed or stopped)                                | (final)                                  |
 * | interrupted | over: ended by the bridge's shutdown                              | (final)                                  |
 */
import type { UserRef } from '../delivery/surface.js';

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
