/**
 * The contract run against the Discord Surface: the real discord.js client (createDiscordPlatform,
 * logged in to the loopback fake Discord) posting into a guild channel. What a person sees is
 * read back from the fake's stored message (content + button rows).
 */
import type { MessageRef } from '../../src/chat.js';
import { makeRig, RecordingBridge } from '../e2e/discord/harness.js';
import { snowflake, type FakeMessage } from '../fakes/discord/index.js';
import { surfaceContract, type SeenMessage, type SeenPrompt } from './surface-contract.js';

const SUBTEXT = '-# ';
const THINKING = '-# 💭 ';
/** Discord's hard limit for a message's content. */
const DISCORD_CONTENT_LIMIT = 2000;

/** Button custom_ids as the platform encodes them ("tb:<action>:<id>"; hashed ids are not used here). */
function decodeCustomId(customId: string | undefined): { action: 'allow' | 'deny' | 'stop'; id: string } | undefined {
  const m = /^tb:(allow|deny|stop):(.+)$/s.exec(customId ?? '');
  return m ? { action: m[1] as 'allow' | 'deny' | 'stop', id: m[2]! } : undefined;
}

function allButtons(m: FakeMessage): Array<{ label?: string; custom_id?: string }> {
  return m.components.flatMap((row) => row.components);
}

/** Splits content into the answer and the muted subtext lines the Surface adds after it. */
function readContent(content: string): SeenMessage {
  const lines = content.split('\n');
  let thinking: string | undefined;
  let status: string | undefined;
  while (lines.length && lines.at(-1)!.startsWith(SUBTEXT)) {
    const line = lines.pop()!;
    if (line.startsWith(THINKING)) thinking = line.slice(THINKING.length);
    else status = line.slice(SUBTEXT.length).replace(/^\S+\s/, '');
  }
  const text = lines.join('\n');
  // an empty message shows a lone ellipsis placeholder
  return { text: text === '…' && thinking === undefined && status === undefined ? '' : text, thinking, status };
}

surfaceContract('discord', async () => {
  // Roomy buckets: the contract checks what the Surface promises, not Discord's pacing (the
  // delivery tests cover that); the rate-limit headers are still sent.
  const rig = await makeRig({
    fake: { limits: { 'POST /channels/:id/messages': { limit: 100, windowMs: 5000 }, 'PATCH /channels/:id/messages/:id': { limit: 100, windowMs: 5000 } } },
  });
  const other = rig.fake.addTextChannel('contract-other');
  await rig.platform.start(new RecordingBridge());
  const { guild, general } = rig.fake.world;
  const conversation = { space: guild.id, channel: general.id, thread: '' };

  function stored(ref: MessageRef): FakeMessage {
    const m = rig.fake.messages.get(ref.id.split('/')[1] ?? '');
    if (!m) throw new Error(`fake discord has no message ${ref.id}`);
    return m;
  }

  return {
    surface: rig.platform.surface,
    conversation,
    otherConversation: { space: guild.id, channel: other.id, thread: '' },
    // Discord rate-limits message edits per channel: each channel (thread) has its own budget.
    editBudgetScope: 'conversation',
    hardTextLimit: DISCORD_CONTENT_LIMIT,
    async read(ref): Promise<SeenMessage> {
      const m = stored(ref);
      const stop = allButtons(m).map((b) => decodeCustomId(b.custom_id)).find((d) => d?.action === 'stop');
      return { ...readContent(m.content), stop: stop?.id };
    },
    async readPrompt(ref): Promise<SeenPrompt> {
      const m = stored(ref);
      const buttons = allButtons(m).flatMap((b) => {
        const d = decodeCustomId(b.custom_id);
        return d && (d.action === 'allow' || d.action === 'deny') ? [{ action: d.action, id: d.id, raw: b.custom_id ?? '' }] : [];
      });
      const lines = m.content.split('\n');
      // the first line is the prompt's state: "Permission needed" while pending, else the outcome
      const head = lines[0] ?? '';
      const note = lines.filter((l) => l.startsWith(SUBTEXT)).map((l) => l.slice(SUBTEXT.length));
      return {
        body: m.content,
        buttons,
        outcome: /Permission needed/.test(head) ? undefined : [head, ...note].join('\n'),
      };
    },
    vanishedMessage: () => ({ id: `${general.id}/${snowflake()}`, conversation }),
    vanishedSource: () => ({ id: `${general.id}/${snowflake()}`, conversation }),
    async readFiles() {
      const m = rig.fake.botMessages(general.id).filter((x) => x.attachments.length).at(-1);
      // from the CDN urls, as a person's client loads them
      return Promise.all((m?.attachments ?? []).map(async (a) => ({
        name: a.filename, image: (a.content_type ?? '').startsWith('image/'), bytes: Buffer.from(await (await fetch(a.url)).arrayBuffer()),
      })));
    },
    async lastPosted() {
      const m = rig.fake.botMessages(general.id).at(-1);
      return m ? { id: `${general.id}/${m.id}`, conversation } : undefined;
    },
    // the fake always sends Retry-After (Discord does too); a missing one is sent as 1 s
    inject429: (op, secs) => rig.fake.rateLimits.force429(op === 'post' ? 'POST /channels/:id/messages' : 'PATCH /channels/:id/messages/:id', 1, secs ?? 1),
    close: () => rig.close(),
  };
});
