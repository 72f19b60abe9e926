import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatCost, readUsage, usageLine } from '../../../src/bridge/turns/turn-usage.js';

describe('turn usage', () => {
  it('reads the protocol keys the wrappers send and ignores the rest', () => {
    assert.deepEqual(readUsage({ input_tokens: 1200, output_tokens: 34, total_tokens: 1234, cost_usd: 0.0123, cache_read_input_tokens: 1000, extra: 'x' }), {
      inputTokens: 1200, outputTokens: 34, totalTokens: 1234, costUsd: 0.0123,
    });
  });

  it('leaves out what is not a finite number >= 0, and is undefined with nothing to count', () => {
    assert.deepEqual(readUsage({ input_tokens: '12', output_tokens: -1, cost_usd: Number.NaN, total_tokens: 7 }), { inputTokens: 0, outputTokens: 0, totalTokens: 7 });
    assert.equal(readUsage({ duration_ms: 5 }), undefined);
    assert.equal(readUsage(undefined), undefined);
    assert.equal(readUsage({}), undefined);
  });

  it('the line: tokens in and out, the cost only when reported', () => {
    assert.equal(usageLine(readUsage({ input_tokens: 12345, output_tokens: 678 })!), '12,345 tokens in · 678 out');
    assert.equal(usageLine(readUsage({ input_tokens: 10, output_tokens: 2, cost_usd: 0.00042 })!), '10 tokens in · 2 out · $0.0004');
    assert.equal(usageLine(readUsage({ total_tokens: 99 })!), '99 tokens');
    assert.equal(usageLine(readUsage({ cost_usd: 1.5 })!), '$1.50');
  });

  it('cost: cents from a dollar up, four places below', () => {
    assert.equal(formatCost(12.345), '$12.35');
    assert.equal(formatCost(0.01234), '$0.0123');
    assert.equal(formatCost(0), '$0.0000');
  });
});
