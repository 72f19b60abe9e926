/**
 * The two platforms for the bridge benchmark, seen from the person's side: a fake (the project's
 * loopback FakeSlack / FakeDiscord) that sends a message for turn N and reports every API call
 * the bridge makes, with the time the fake answered it. A turn's text carries its id
 * ("p<N>first … p<N>last"), so a call is matched to its turn by the text it carries.
 */
import { FakeSlack, TEAM, BOT_USER, visibleText, type FakeMessage as SlackMessage } from '../../test/fakes/slack/index.js';
import { FakeDiscord } from '../../test/fakes/discord/index.js';
import { makeUser } from '../../test/fakes/discord/payloads.js';

/** Wall clock in ms with sub-ms resolution, comparable with the agents' $EPOCHREALTIME. */
export const clock = (): number => performance.timeOrigin + performance.now();

export interface SeenCall {
  at: number;
  /** The call's payload as JSON (text, blocks, components). */
  json: string;
  /** No Stop button and no progress line: what the reply looks like when it is done. */
  final: boolean;
}

export interface Driver {
  readonly name: 'slack' | 'discord';
  /** Environment and turnbridge.yaml section for the bridge process. */
  readonly env: Record<string, string>;
  readonly section: Record<string, unknown>;
  /** How the budgets are set, for the report. */
  readonly budgets: string;
  /** A person sends `text` for turn `id`; resolves the time just before the fake delivered the event. */
  send(id: number, text: string): Promise<number>;
  onCall(listener: (call: SeenCall) => void): void;
  /** The reply to turn `id` as the person sees it now (all parts, joined). */
  shownText(id: number): string;
  close(): Promise<void>;
}

/** Slack: budgets x `scale` in both the fake and the bridge (rate_scale), as the e2e tests run. */
export async function slackDriver(scale: number, channels: number): Promise<Driver> {
  const fake = await FakeSlack.start({ timeScale: scale });
  const sources = new Map<number, { channel: string; ts: string }>();
  const listeners: Array<(c: SeenCall) => void> = [];
  let seen = 0;
  fake.on('change', () => {
    const at = clock();
    for (; seen < fake.calls.length; seen++) {
      const call = fake.calls[seen]!;
      if (!call.ok || !call.method.startsWith('chat.')) continue;
      const json = JSON.stringify(call.params);
      const final = !json.includes('"tb_stop') && !json.includes(':hourglass');
      for (const l of listeners) l({ at, json, final });
    }
  });
  return {
    name: 'slack',
    env: { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl },
    section: { rate_scale: scale },
    budgets: `Slack's budgets x${scale} in the fake and in the bridge (rate_scale ${scale}); ${channels} channels`,
    async send(id, text) {
      const channel = `C0BENCH${id % channels}`;
      const at = clock();
      const { ts } = await fake.userMessage({ channel, user: 'U0PERSON', text: `<@${BOT_USER}> ${text}` });
      sources.set(id, { channel, ts });
      return at;
    },
    onCall: (l) => listeners.push(l),
    shownText(id) {
      const src = sources.get(id);
      if (!src) return '';
      const parts = fake.botMessages(src.channel, src.ts).filter((m: SlackMessage) => Number(m.ts) > Number(src.ts));
      return parts.map((m) => visibleText(m)).join('');
    },
    close: () => fake.close(),
  };
}

/** Discord: Discord's own budgets (5 per 5 s per channel); each turn is one person's DM. */
export async function discordDriver(): Promise<Driver> {
  const fake = await new FakeDiscord().start();
  const dms = new Map<number, string>();
  const listeners: Array<(c: SeenCall) => void> = [];
  fake.on('call', (call: { route: string; status: number; body?: { content?: string; components?: unknown[] } }) => {
    if (call.status >= 300 || !call.route.includes('/messages') || call.body?.content === undefined) return;
    const at = clock();
    const json = JSON.stringify(call.body);
    const final = (call.body.components ?? []).length === 0 && !call.body.content.includes('⏳');
    for (const l of listeners) l({ at, json, final });
  });
  return {
    name: 'discord',
    env: { DISCORD_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl },
    section: {},
    budgets: "Discord's budgets as the fake enforces them (5 messages and 5 edits per 5 s per channel); one DM channel per turn",
    async send(id, text) {
      const user = makeUser(`person${id}`);
      const at = clock();
      const msg = fake.dm(user, text);
      dms.set(id, msg.channel_id);
      return at;
    },
    onCall: (l) => listeners.push(l),
    shownText(id) {
      const channel = dms.get(id);
      return channel ? fake.botMessages(channel).map((m) => m.content).join('\n') : '';
    },
    close: () => fake.stop(),
  };
}

export { TEAM };
