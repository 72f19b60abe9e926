/**
 * A turn's life (src/bridge/turns/turn-registry.ts) and the registry that alone changes it: the legal paths, the
 * refused events (logged with the reason, nothing changed), and what the registry holds.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { createTurnRegistry, nextPhase, type PhasedTurn, type TurnEvent, type TurnPhase } from '../../../src/bridge/turns/turn-registry.js';
import type { Logger } from '../../../src/log.js';
import { logCapture } from '../../fakes/log-capture.js';

const ana = { id: 'U1' };

function turn(key: string, id: string, logger: Logger): PhasedTurn {
  return { key, stopActionId: id, log: logger, phase: { kind: 'queued' } };
}

/** Run events from `queued`; the phase kinds after each (or the refusal). */
function path(...events: TurnEvent[]): string[] {
  let p: TurnPhase = { kind: 'queued' };
  return events.map((e) => {
    const next = nextPhase(p, e);
    if (typeof next === 'string') return `refused: ${next}`;
    p = next;
    return p.kind;
  });
}

describe('turn phases', () => {
  it('the ordinary life: queued -> running -> finishing -> done', () => {
    assert.deepEqual(path({ type: 'start' }, { type: 'agent-ended' }, { type: 'end' }), ['running', 'finishing', 'done']);
  });

  it('several replicas: gated -> queued -> running', () => {
    assert.deepEqual(path({ type: 'gate' }, { type: 'ungate' }, { type: 'start' }), ['gated', 'queued', 'running']);
  });

  it('Stop while running: stopping until the agent ended, done with the stopper as cause', () => {
    let p: TurnPhase = { kind: 'running' };
    for (const e of [{ type: 'stop', by: ana }, { type: 'agent-ended' }, { type: 'end' }] as TurnEvent[]) p = nextPhase(p, e) as TurnPhase;
    assert.deepEqual(p, { kind: 'done', cause: { kind: 'stopped', by: ana } });
  });

  it('Stop while waiting: stopping, then over without an agent', () => {
    assert.deepEqual(path({ type: 'gate' }, { type: 'stop', by: ana }, { type: 'end' }), ['gated', 'stopping', 'done']);
    assert.match(path({ type: 'stop', by: ana }, { type: 'agent-ended' })[1]!, /^refused: no agent runs for a turn stopped before it started/);
  });

  it('shutdown wins over a Stop already pressed, and ends the turn interrupted', () => {
    assert.deepEqual(path({ type: 'start' }, { type: 'stop', by: ana }, { type: 'interrupt' }, { type: 'agent-ended' }, { type: 'end' }), [
      'running', 'stopping', 'stopping', 'finishing', 'interrupted',
    ]);
    const p = nextPhase({ kind: 'stopping', cause: { kind: 'stopped', by: ana }, from: 'running' }, { type: 'interrupt' });
    assert.deepEqual(p, { kind: 'stopping', cause: { kind: 'interrupted' }, from: 'running' });
  });

  it('a finishing turn has nothing to interrupt: it stays finishing and ends done', () => {
    assert.deepEqual(path({ type: 'start' }, { type: 'agent-ended' }, { type: 'interrupt' }, { type: 'end' }), ['running', 'finishing', 'finishing', 'done']);
  });

  it('illegal events are refused with a reason', () => {
    assert.match(path({ type: 'agent-ended' })[0]!, /^refused: no agent runs for a queued turn/);
    assert.match(path({ type: 'ungate' })[0]!, /^refused: the turn is not waiting for a ticket/);
    assert.match(path({ type: 'gate' }, { type: 'start' })[1]!, /^refused: only a queued turn can start \(it is gated\)/);
    assert.match(path({ type: 'start' }, { type: 'start' })[1]!, /^refused: only a queued turn can start/);
    assert.match(path({ type: 'start' }, { type: 'agent-ended' }, { type: 'stop', by: ana })[2]!, /^refused: a finishing turn cannot be stopped/);
    assert.match(path({ type: 'start' }, { type: 'stop', by: ana }, { type: 'stop', by: ana })[2]!, /^refused: a stopping turn cannot be stopped/);
    for (const over of [{ kind: 'done' }, { kind: 'interrupted' }] as TurnPhase[]) {
      for (const e of [{ type: 'start' }, { type: 'interrupt' }, { type: 'end' }] as TurnEvent[]) {
        assert.match(nextPhase(over, e) as string, /already over/, `${over.kind} + ${e.type}`);
      }
    }
  });
});

describe('turn registry', () => {
  it('holds admitted turns until they end, then remembers them as ended', () => {
    const { logger } = logCapture();
    const reg = createTurnRegistry<PhasedTurn>();
    const t = turn('A', 'stop-1', logger);
    reg.admit(t);
    assert.equal(reg.get('stop-1'), t);
    assert.ok(reg.start(t));
    assert.deepEqual(reg.counts(), { running: 1 });
    assert.ok(reg.agentEnded(t));
    assert.ok(reg.end(t));
    assert.equal(t.phase.kind, 'done');
    assert.equal(reg.get('stop-1'), undefined);
    assert.ok(reg.ended('stop-1'));
    assert.deepEqual(reg.all(), []);
  });

  it('a refused event changes nothing and is logged with the reason', () => {
    const { logger, lines } = logCapture();
    const reg = createTurnRegistry<PhasedTurn>();
    const t = turn('A', 'stop-1', logger);
    reg.admit(t);
    assert.equal(reg.agentEnded(t), false);
    assert.deepEqual(t.phase, { kind: 'queued' });
    const refused = lines.find((l) => l.msg === 'turn transition refused');
    assert.ok(refused, 'logged');
    assert.equal(refused.level, 40, 'at warn');
    assert.deepEqual([refused.phase, refused.event], ['queued', 'agent-ended']);
    assert.match(String(refused.reason), /no agent runs/);
    assert.equal(reg.get('stop-1'), t, 'still held');
  });

  it('stoppable: the running turn first, else the oldest waiting one (a stopped waiting one stays the answer)', () => {
    const { logger } = logCapture();
    const reg = createTurnRegistry<PhasedTurn>();
    const [a, b, c, other] = [turn('K', 's1', logger), turn('K', 's2', logger), turn('K', 's3', logger), turn('L', 's4', logger)];
    for (const t of [a, b, c, other]) reg.admit(t);
    reg.gate(a);
    assert.equal(reg.stoppable('K'), a, 'a gated turn is waiting too');
    reg.start(c);
    assert.equal(reg.stoppable('K'), c, 'running wins');
    reg.stop(c, ana);
    assert.equal(reg.stoppable('K'), c, 'stopping while running still holds the conversation');
    reg.agentEnded(c);
    assert.equal(reg.stoppable('K'), a, 'finishing is not stoppable');
    reg.stop(a, ana);
    assert.equal(reg.stoppable('K'), a, 'a second `stop` finds the one already stopped');
    reg.end(a);
    assert.equal(reg.stoppable('K'), b);
    assert.equal(reg.stoppable('nothing'), undefined);
  });

  it('remembers a bounded number of ended turns', () => {
    const { logger } = logCapture();
    const reg = createTurnRegistry<PhasedTurn>({ rememberEnded: 2 });
    for (const id of ['s1', 's2', 's3']) {
      const t = turn('A', id, logger);
      reg.admit(t);
      reg.end(t);
    }
    assert.deepEqual(['s1', 's2', 's3'].map((id) => reg.ended(id)), [false, true, true]);
  });
});
