/**
 * A turn's deadline (the profile's timeout_secs), which can be held while a person is asked: the
 * timeout bounds the agent's work, not how long someone takes to answer its question or read its
 * plan (docs/approvals.md, "Cards"). While any hold is on, the deadline does not run; once the
 * last is released, it runs again with what was left.
 */
type TurnClock =
  | { kind: 'running'; timer: NodeJS.Timeout; endsAt: number }
  | { kind: 'held'; leftMs: number; holds: number }
  | { kind: 'stopped' };

export interface Deadline {
  /** Hold the clock until the returned function is called (once; later calls do nothing). */
  hold(): () => void;
  /** The turn is over: no timeout any more. */
  clear(): void;
}

export function createDeadline(timeoutMs: number, onTimeout: () => void, now: () => number = Date.now): Deadline {
  const arm = (ms: number): TurnClock => ({ kind: 'running', timer: setTimeout(onTimeout, ms), endsAt: now() + ms });
  let clock = arm(timeoutMs);

  return {
    hold() {
      if (clock.kind === 'running') {
        clearTimeout(clock.timer);
        clock = { kind: 'held', leftMs: Math.max(0, clock.endsAt - now()), holds: 1 };
      } else if (clock.kind === 'held') {
        clock = { ...clock, holds: clock.holds + 1 };
      }
      let released = false;
      return () => {
        if (released || clock.kind !== 'held') return;
        released = true;
        clock = clock.holds > 1 ? { ...clock, holds: clock.holds - 1 } : arm(clock.leftMs);
      };
    },
    clear() {
      if (clock.kind === 'running') clearTimeout(clock.timer);
      clock = { kind: 'stopped' };
    },
  };
}
