/**
 * The turn's deadline held while a person answers, through the runner with a real agent process
 * that asks and waits (runner/turn-clock.ts; timers mocked: no wall clock).
 */
import { strict as assert } from 'node:assert';
import { afterEach, describe, it, mock } from 'node:test';
import { run } from '../../../src/runner/index.js';
import type { PermissionDecision } from '../../../src/protocol/types.js';
import { scripted } from './helpers.js';

describe('turn clock through the runner', () => {
  afterEach(() => mock.timers.reset());

  const asks = scripted([
    { line: { type: 'permission_request', request_id: 'q1', tool_name: 'AskUserQuestion', input: { questions: [] } } },
    { read: true },
    { line: { type: 'result', text: '' } },
  ], { permission: true });

  it('a person who takes longer than the turn\'s timeout does not time the turn out', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    let answer!: (d: PermissionDecision) => void;
    let asked!: () => void;
    const seen = new Promise<void>((r) => (asked = r));
    const result = run(asks, { message: 'x' }, {
      onPermissionRequest: (_req, { holdClock }) => {
        const release = holdClock!();
        asked();
        return new Promise<PermissionDecision>((r) => (answer = (d) => { release(); r(d); }));
      },
    }, { timeoutMs: 1000 });
    await seen;
    mock.timers.tick(3_600_000);
    answer({ behavior: 'allow', updatedInput: { answers: { 'Q?': 'A' } } });
    const r = await result;
    assert.equal(r.timedOut, false);
    assert.equal(r.exitCode, 0);
    assert.deepEqual(JSON.parse(r.partials[0]!.text), { type: 'permission_response', request_id: 'q1', behavior: 'allow', updated_input: { answers: { 'Q?': 'A' } } });
  });

  it('without a hold the same wait times the turn out', async () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    let asked!: () => void;
    const seen = new Promise<void>((r) => (asked = r));
    const result = run(asks, { message: 'x' }, {
      onPermissionRequest: () => {
        asked();
        return new Promise<PermissionDecision>(() => {});
      },
    }, { timeoutMs: 1000, killGraceMs: 1000 });
    await seen;
    mock.timers.tick(1000);
    const r = await result;
    assert.equal(r.timedOut, true);
  });
});
