/**
 * A finished reply's footer (the usage line): on the last message only, whichever way the reply
 * ended up shown (post + edit over several parts, a native stream's stop, a stream with text left
 * over for a part after it), and never on a running reply.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDelivery } from '../../../src/delivery/index.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { streamingRig } from './streaming-rig.js';
import { advance, conv, finishOnClock, flush, useFakeClock } from './helpers.js';

const FOOTER = '12 tokens in · 34 out · $0.0100';

describe('reply footer', () => {
  test('post + edit over several parts: the footer is on the last part, after the notices, and nowhere else', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface({ maxTextChars: 100 });
    const delivery = createDelivery(surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1' });
    await flush();
    reply.append({ text: 'word '.repeat(50) });
    await advance(t, 100);
    for (const m of surface.messagesIn(conv)) assert.equal(m.content.footer, undefined, 'no footer while running');
    reply.addNotice('a notice');
    await finishOnClock(t, reply, { kind: 'success', reply: '', footer: FOOTER });
    const shown = surface.messagesIn(conv);
    assert.ok(shown.length >= 3, `split over ${shown.length} parts`);
    assert.deepEqual(shown.map((m) => m.content.footer), [...shown.slice(0, -1).map(() => undefined), FOOTER]);
    assert.match(shown.at(-1)!.content.text, /a notice$/);
    await delivery.close();
  });

  test('a failed turn keeps its footer too; an empty footer shows none', async (t) => {
    useFakeClock(t);
    const surface = createRecordingSurface();
    const delivery = createDelivery(surface);
    const failed = delivery.open(conv);
    await finishOnClock(t, failed, { kind: 'error', message: 'boom', footer: FOOTER });
    const blank = delivery.open(conv);
    await finishOnClock(t, blank, { kind: 'success', reply: 'ok', footer: '  ' });
    const [a, b] = surface.messagesIn(conv);
    assert.deepEqual({ text: a!.content.text, tone: a!.content.tone, footer: a!.content.footer }, { text: 'error: boom', tone: 'error', footer: FOOTER });
    assert.equal(b!.content.footer, undefined);
    assert.ok(!('footer' in b!.content));
    await delivery.close();
  });

  test('native stream: the stop carries the footer; the control message never does', async (t) => {
    useFakeClock(t);
    const rig = streamingRig();
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1', recipient: { id: 'U1' } });
    await flush();
    reply.append({ text: 'hello ' });
    await advance(t, 200);
    await finishOnClock(t, reply, { kind: 'success', reply: 'world', footer: FOOTER });
    assert.equal(rig.streams.length, 1);
    assert.deepEqual(rig.streams[0]!.stop, { text: rig.streams[0]!.stop!.text, tone: 'success', footer: FOOTER });
    assert.equal(rig.text(rig.streams[0]!), 'hello world');
    for (const m of rig.surface.messages()) assert.equal(m.content.footer, undefined);
    await delivery.close();
  });

  test('native stream with text left over at the end: the footer goes on the part after the stream, not on its stop', async (t) => {
    useFakeClock(t);
    const rig = streamingRig({ maxChars: 200 });
    const delivery = createDelivery(rig.surface);
    const reply = delivery.open(conv, { stopActionId: 'stop:1', recipient: { id: 'U1' } });
    await flush();
    reply.append({ text: 'hello ' });
    await advance(t, 200);
    await finishOnClock(t, reply, { kind: 'success', reply: 'long '.repeat(60), footer: FOOTER });
    const stops = rig.streams.map((s) => s.stop);
    assert.ok(stops.length >= 1);
    for (const s of stops) assert.equal(s?.footer, undefined, 'no footer on a stop with text after it');
    const last = rig.surface.messages().at(-1)!;
    assert.equal(last.content.footer, FOOTER);
    assert.equal(rig.surface.messages().filter((m) => m.content.footer !== undefined).length, 1);
    await delivery.close();
  });
});
