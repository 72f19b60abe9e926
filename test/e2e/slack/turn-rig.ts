/**
 * The full stack for Slack turn tests: fake Slack (Slack's budgets, time-scaled) + the real Bolt
 * app (createSlackPlatform, rate budgets scaled by the same factor) + the real bridge core
 * (createBridge) + real agent processes (test/fixtures/slack-agents, profiles/demo).
 */
import type { BridgeConfig } from '../../../src/config/types.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBridge, type CoreBridge } from '../../../src/bridge/index.js';
import { silentLogger, type Logger } from '../../../src/log.js';
import { createSlackPlatform, type SlackPlatform } from '../../../src/platforms/slack/index.js';
import { FakeSlack, buttons, contextLines, visibleText, type FakeMessage, type FakeSlackOptions } from '../../fakes/slack/index.js';
import { baseConfig, slackEnv } from './harness.js';

export const AGENT_PROFILE = join(process.cwd(), 'test/fixtures/slack-agents/profile.yaml');
export const DEMO_PROFILE = join(process.cwd(), 'profiles/demo/profile.yaml');

export interface TurnRigOptions {
  /** Shrinks Slack's rate windows in the fake and grows the bridge's budgets by the same factor. */
  timeScale?: number;
  slack?: Record<string, unknown>;
  config?: Partial<BridgeConfig>;
  fake?: FakeSlackOptions;
  logger?: Logger;
  /** The fake is unreachable when the platform starts (call fake.setDown(false) later). */
  downAtStart?: boolean;
}

export interface TurnRig {
  fake: FakeSlack;
  platform: SlackPlatform;
  bridge: CoreBridge;
  config: BridgeConfig;
  /** Bot messages in a thread that are replies (prompts excluded), oldest first. */
  replies(channel: string, thread: string): FakeMessage[];
  /** The permission prompts (and cards) posted in a thread. */
  prompts(channel: string, thread: string): FakeMessage[];
  /**
   * Waits until the reply to the user message `source` is final and returns its parts: the bridge
   * reacts on the source message after the last part landed, and the last part shows no
   * buttons and no progress line.
   */
  finalReply(channel: string, thread: string, source: string, opts?: { timeoutMs?: number }): Promise<FakeMessage[]>;
  /**
   * Waits until the prompt at `ts` shows its decision (no buttons): the update goes through
   * delivery's limiters, so it may land a moment after the reply's final part.
   */
  decidedPrompt(channel: string, ts: string): Promise<FakeMessage>;
  close(): Promise<void>;
}

/** A permission prompt, or a card (a question: ❓, a plan: 📋; src/platforms/slack/card-blocks.ts). */
export const isPrompt = (m: FakeMessage): boolean => m.blocks.some((b) => b.type === 'section' && /^:(lock|question|clipboard):/.test(String(b.text?.text ?? '')));
export const isFinal = (m: FakeMessage): boolean => buttons(m).length === 0 && !contextLines(m).some((l) => l.includes(':hourglass_flowing_sand:'));
/** The answer across a reply's parts. */
export const answerOf = (parts: FakeMessage[]): string => parts.map((p) => visibleText(p)).join('');

export async function makeTurnRig(opts: TurnRigOptions = {}): Promise<TurnRig> {
  const scale = opts.timeScale ?? 20;
  const dataDir = await mkdtemp(join(tmpdir(), 'tb-slack-e2e-'));
  const fake = await FakeSlack.start({ timeScale: scale, users: { U0ANA: 'ana', U0BEN: 'ben' }, ...opts.fake });
  const base = baseConfig(slackEnv(fake), { rate_scale: scale, ...opts.slack });
  const config: BridgeConfig = { ...base, defaultProfile: AGENT_PROFILE, dataDir, maxConcurrent: 12, ...opts.config };
  const logger = opts.logger ?? silentLogger;
  const platform = createSlackPlatform({ config, logger });
  const bridge = createBridge({ config, logger });
  bridge.attach(platform.surface);
  if (opts.downAtStart) fake.setDown(true);
  await platform.start(bridge);

  const inThread = (channel: string, thread: string): FakeMessage[] => fake.botMessages(channel, thread);
  const replies = (channel: string, thread: string): FakeMessage[] => inThread(channel, thread).filter((m) => !isPrompt(m));
  return {
    fake, platform, bridge, config,
    replies,
    prompts: (channel, thread) => inThread(channel, thread).filter(isPrompt),
    finalReply(channel, thread, source, o = {}) {
      return fake.waitFor(() => {
        const reactions = fake.message(channel, source)?.reactions;
        if (!reactions?.has('white_check_mark') && !reactions?.has('x')) return undefined;
        const parts = replies(channel, thread).filter((m) => Number(m.ts) > Number(source));
        const last = parts.at(-1);
        if (!last || !isFinal(last)) return undefined;
        return parts;
      }, `the final reply to ${channel}/${source}`, o.timeoutMs ?? 30_000);
    },
    decidedPrompt(channel, ts) {
      return fake.waitFor(() => {
        const m = fake.message(channel, ts);
        return m && buttons(m).length === 0 ? m : undefined;
      }, `the decided prompt ${channel}/${ts}`);
    },
    async close() {
      await bridge.shutdown(1000).catch(() => {});
      await platform.stop();
      await fake.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
