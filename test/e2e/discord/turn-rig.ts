/**
 * The full stack for turn tests: fake Discord + real discord.js (createDiscordPlatform) + real bridge
 * core (createBridge) + real agent processes (test/fixtures/discord-agents).
 */
import type { MessageRef } from '../../../src/chat.js';
import type { BridgeConfig } from '../../../src/config/types.js';
import { join } from 'node:path';
import { createBridge, type CoreBridge, type CreateBridgeOptions } from '../../../src/bridge/index.js';
import type { Surface } from '../../../src/delivery/surface.js';
import type { FakeMessage } from '../../fakes/discord/index.js';
import { makeRig, testLogger, type Rig, type RigOptions } from './harness.js';

export const AGENT_PROFILE = join(process.cwd(), 'test/fixtures/discord-agents/profile.yaml');

export interface TurnRig extends Rig {
  bridge: CoreBridge;
  /** Most edits of one message that were in flight at once through the Surface (backlog check). */
  maxEditsInFlight(): number;
  /** The bot's reply messages in a channel posted after `after` (prompts excluded), oldest first. */
  replies(channelId: string, after: FakeMessage): FakeMessage[];
  /** Waits until every part of the reply to `after` is final (no buttons, no progress line) and returns them. */
  finalReply(channelId: string, after: FakeMessage, timeoutMs?: number, until?: (text: string) => boolean): Promise<FakeMessage[]>;
}

const isPrompt = (m: FakeMessage): boolean => /^(🔐|✅ \*\*Allowed|⛔ \*\*Denied|⌛ \*\*|❓ \*\*|📋 \*\*)/u.test(m.content);

export async function makeTurnRig(opts: RigOptions & { config?: Partial<BridgeConfig>; runTurn?: CreateBridgeOptions['runTurn']; wrapSurface?: (s: Surface) => Surface } = {}): Promise<TurnRig> {
  const rig = await makeRig({ ...opts, config: { defaultProfile: AGENT_PROFILE, ...opts.config } });
  const bridge = createBridge({ config: rig.config, logger: opts.logger ?? testLogger(), ...(opts.runTurn ? { runTurn: opts.runTurn } : {}) });
  const inFlight = new Map<string, number>();
  let maxInFlight = 0;
  const surface = rig.platform.surface;
  const watched: Surface = {
    ...surface,
    platform: surface.platform,
    capabilities: surface.capabilities,
    async edit(ref: MessageRef, content) {
      const n = (inFlight.get(ref.id) ?? 0) + 1;
      inFlight.set(ref.id, n);
      maxInFlight = Math.max(maxInFlight, n);
      try {
        await surface.edit(ref, content);
      } finally {
        inFlight.set(ref.id, (inFlight.get(ref.id) ?? 1) - 1);
      }
    },
  };
  bridge.attach(opts.wrapSurface ? opts.wrapSurface(watched) : watched);
  await rig.platform.start(bridge);
  const replies = (channelId: string, after: FakeMessage): FakeMessage[] =>
    rig.fake.botMessages(channelId).filter((m) => BigInt(m.id) > BigInt(after.id) && !isPrompt(m));
  return {
    ...rig,
    bridge,
    maxEditsInFlight: () => maxInFlight,
    replies,
    finalReply(channelId, after, timeoutMs = 20_000, until) {
      return rig.fake.waitFor(() => {
        const parts = replies(channelId, after);
        const last = parts.at(-1);
        if (!last || parts.some((p) => p.components.length > 0 || p.content.includes('-# ⏳'))) return undefined;
        if (until && !until(parts.map((p) => p.content).join('\n'))) return undefined;
        return parts;
      }, timeoutMs, `the final reply in ${channelId}`);
    },
    async close() {
      await bridge.shutdown(1000).catch(() => {});
      await rig.close();
    },
  };
}
