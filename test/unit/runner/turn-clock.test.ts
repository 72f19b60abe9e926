/**
 * The turn's deadline held while a person answers (turn-clock.ts), timers mocked; through the
 * runner with a real agent: test/integration/runner/turn-clock.test.ts.
 */
import { strict as assert } from 'node:assert';
import { afterEach, describe, it, mock } from 'node:test';
import { createDeadline } from '../../../src/runner/turn-clock.js';

describe('turn clock', () => {
  afterEach(() => mock.timers.reset());

  it('runs out on time; held, it does not run; released, what was left runs; two holds need both released', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    let fired = 0;
    const d = createDeadline(1000, () => fired++);
    mock.timers.tick(400);
    const a = d.hold();
    const b = d.hold();
    mock.timers.tick(10_000);
    assert.equal(fired, 0, 'held');
    a();
    a(); // a second call of the same release does nothing
    mock.timers.tick(10_000);
    assert.equal(fired, 0, 'still held by the other');
    b();
    mock.timers.tick(599);
    assert.equal(fired, 0);
    mock.timers.tick(1);
    assert.equal(fired, 1, 'the 600 ms that were left');
    const c = createDeadline(1000, () => fired++);
    c.clear();
    c.hold()();
    mock.timers.tick(5000);
    assert.equal(fired, 1, 'cleared: never fires, a hold does not re-arm it');
  });
});
