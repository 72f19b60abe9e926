import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mentionsUser, normalizeInboundText } from '../../../../src/platforms/slack/events.js';

const names: Record<string, string> = { U1: 'ana' };
const resolveUser = async (id: string): Promise<string | undefined> => names[id];

test('the bot mention is stripped; users, channels, links and specials become readable', async () => {
  const t = await normalizeInboundText(
    '<@UBOT> hi <@U1>, ask <@U2> or <@U3|bob> in <#C1|ops> / <#C2>: see <https://a.test/x?y=1&amp;z=2|the doc>, <https://b.test>, <mailto:a@b.c|a@b.c> <!here> <!subteam^S1|@devs> &lt;ok&gt;',
    { botUserId: 'UBOT', resolveUser });
  assert.equal(t, 'hi @ana, ask @U2 or @bob in #ops / #C2: see the doc (https://a.test/x?y=1&z=2), https://b.test, a@b.c @here @devs <ok>');
});

test('code indentation survives; only the whole text is trimmed', async () => {
  assert.equal(await normalizeInboundText('<@UBOT>   \n```\n  indented\n```', { botUserId: 'UBOT' }), '```\n  indented\n```');
  assert.equal(await normalizeInboundText('<@UBOT|bot>', { botUserId: 'UBOT' }), '');
});

test('a failing users.info falls back to the id', async () => {
  assert.equal(await normalizeInboundText('<@U9>', { resolveUser: async () => { throw new Error('down'); } }), '@U9');
});

test('mentionsUser', () => {
  assert.equal(mentionsUser('hey <@UBOT>', 'UBOT'), true);
  assert.equal(mentionsUser('hey <@UBOT|bot>', 'UBOT'), true);
  assert.equal(mentionsUser('hey <@UBOTX>', 'UBOT'), false);
  assert.equal(mentionsUser('hey', undefined), false);
});
