import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EMPTY_REPLY_TEXT, finalTail, outcomeLine, OUTCOME_SEPARATOR, renderLive, toneOf, trimThinking } from '../../../src/delivery/reply/render.js';

describe('render model', () => {
  test('live content carries status, thinking and the Stop control apart from the answer', () => {
    assert.deepEqual(renderLive({ text: 'ans', thinking: 'hmm', status: 'working…', stopActionId: 's1' }), {
      text: 'ans', thinking: 'hmm', status: 'working…', tone: 'progress', stopActionId: 's1',
    });
    assert.deepEqual(renderLive({ text: '', status: 'queued: position 2' }), { text: '', status: 'queued: position 2', tone: 'progress' });
  });

  test('thinking keeps the newest words within the limit', () => {
    assert.equal(trimThinking('  short  ', 10), 'short');
    assert.equal(trimThinking('abcdefghij', 5), '…ghij');
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.integer({ min: 2, max: 100 }), (t, max) => {
        const out = trimThinking(t, max);
        assert.ok(out.length <= max);
        const tail = out.startsWith('…') && t.trim().length > max ? out.slice(1) : out;
        assert.ok(t.trim().endsWith(tail));
      }),
    );
  });

  test('success: reply after partials, exact; empty says so', () => {
    assert.equal(finalTail('partial ', { kind: 'success', reply: 'rest' }, []), 'rest');
    assert.equal(finalTail('', { kind: 'success', reply: 'whole' }, []), 'whole');
    assert.equal(finalTail('', { kind: 'success', reply: '' }, []), EMPTY_REPLY_TEXT);
    assert.equal(finalTail('', { kind: 'success', reply: '  \n' }, []), `  \n${EMPTY_REPLY_TEXT}`);
  });

  test('errors come after the partials with a visible separator, or alone', () => {
    assert.equal(finalTail('half an answer', { kind: 'error', message: 'boom' }, []), `${OUTCOME_SEPARATOR}error: boom`);
    assert.equal(finalTail('', { kind: 'error', message: 'boom' }, []), 'error: boom');
    assert.equal(finalTail('x', { kind: 'timeout', message: 'timed out after 30 s' }, []), `${OUTCOME_SEPARATOR}timed out after 30 s`);
    assert.equal(finalTail('', { kind: 'interrupted', message: 'the bridge restarted' }, []), 'interrupted: the bridge restarted');
  });

  test('stopped names who stopped it; notices come last', () => {
    assert.equal(outcomeLine({ kind: 'stopped', by: { id: 'U1', name: 'ana' } }), 'stopped by @ana');
    assert.equal(outcomeLine({ kind: 'stopped', by: { id: 'U1' } }), 'stopped by @U1');
    assert.equal(outcomeLine({ kind: 'stopped' }), 'stopped');
    assert.equal(finalTail('a', { kind: 'success', reply: '' }, ['skipped x.bin', ' ']), '\n\nskipped x.bin');
  });

  test('tones', () => {
    assert.equal(toneOf({ kind: 'success', reply: '' }), 'success');
    assert.equal(toneOf({ kind: 'error', message: '' }), 'error');
    assert.equal(toneOf({ kind: 'stopped' }), 'warning');
  });
});
