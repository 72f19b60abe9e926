/**
 * The contract run against the Slack Surface (the platform's real WebClient) over the loopback
 * fake Slack. What a person sees is read back from the fake's stored Block Kit message.
 */
import type { MessageRef } from '../../src/chat.js';
import { FakeSlack, TEAM, buttons, contextLines, visibleText } from '../fakes/slack/index.js';
import { makePlatform } from '../e2e/slack/harness.js';
import { surfaceContract, type SeenMessage, type SeenPrompt } from './surface-contract.js';

const THINKING = ':thought_balloon: ';

/** What Slack shows for mrkdwn text: entities decoded. */
function unescape(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function sectionTexts(blocks: Array<Record<string, any>>): string[] {
  return blocks.filter((b) => b.type === 'section').map((b) => String(b.text?.text ?? ''));
}

surfaceContract('slack', async () => {
  const fake = await FakeSlack.start({ users: { U0DECIDER1: 'ana' } });
  // The Surface needs only the Web API: the platform is built but not started (no Socket Mode).
  const platform = makePlatform(fake, { reactions: true, typing: true });
  // A thread whose root exists (conversations.replies reads it, as Slack does).
  const root = await platform.surface.post({ space: TEAM, channel: 'C0CONTRACT', thread: '' }, { text: 'the thread root' });
  const conversation = { space: TEAM, channel: 'C0CONTRACT', thread: root.id.slice(root.id.indexOf(':') + 1) };

  function stored(ref: MessageRef) {
    const i = ref.id.indexOf(':');
    const m = fake.message(ref.id.slice(0, i), ref.id.slice(i + 1));
    if (!m) throw new Error(`fake slack has no message ${ref.id}`);
    return m;
  }

  return {
    surface: platform.surface,
    conversation,
    otherConversation: { space: TEAM, channel: 'C0OTHER', thread: '' },
    editBudgetScope: 'space',
    // chat.update refuses `text` over 4,000 characters; the answer must fit a message's worth
    hardTextLimit: 4_000,
    async read(ref): Promise<SeenMessage> {
      const m = stored(ref);
      const lines = contextLines(m);
      const thinking = lines.find((l) => l.startsWith(THINKING));
      const status = lines.find((l) => !l.startsWith(THINKING));
      const stop = buttons(m).find((b) => b.action_id === 'tb_stop');
      return {
        text: visibleText(m),
        thinking: thinking === undefined ? undefined : unescape(thinking.slice(THINKING.length).replace(/^_|_$/g, '')),
        status: status === undefined ? undefined : unescape(status.replace(/^:[a-z_]+:\s*/, '')),
        stop: stop?.value,
      };
    },
    async readPrompt(ref): Promise<SeenPrompt> {
      const m = stored(ref);
      const outcome = contextLines(m);
      return {
        body: unescape([...sectionTexts(m.blocks), ...outcome].join('\n')),
        buttons: buttons(m)
          .filter((b) => b.action_id === 'tb_allow' || b.action_id === 'tb_deny')
          .map((b) => ({ action: b.action_id === 'tb_allow' ? 'allow' as const : 'deny' as const, id: b.value, raw: b.value })),
        outcome: outcome.length ? unescape(outcome.join('\n')) : undefined,
      };
    },
    vanishedMessage: () => ({ id: 'C0CONTRACT:1600000000.000077', conversation }),
    vanishedSource: () => ({ id: 'C0CONTRACT:1600000000.000009', conversation }),
    async readFiles() {
      const m = fake.botMessages(conversation.channel, conversation.thread).filter((x) => x.files?.length).at(-1);
      // as a person (the bot token here) downloads them from url_private
      return Promise.all((m?.files ?? []).map(async (f) => {
        const res = await fetch(f.url_private, { headers: { authorization: `Bearer ${fake.botToken}` } });
        return { name: f.name, image: f.mimetype.startsWith('image/'), bytes: Buffer.from(await res.arrayBuffer()) };
      }));
    },
    async lastPosted() {
      const m = fake.botMessages(conversation.channel, conversation.thread).at(-1);
      return m ? { id: `${m.channel}:${m.ts}`, conversation } : undefined;
    },
    inject429: (op, secs) => fake.fault(op === 'post' ? 'chat.postMessage' : 'chat.update', { status: 429, ...(secs === undefined ? {} : { retryAfter: String(secs) }) }),
    async close() {
      await fake.close();
    },
  };
});
