/** Shared set-up for the Slack e2e tests: fake Slack + createSlackPlatform with test-friendly settings. */
import type { BridgeConfig } from '../../../src/config/types.js';
import { InboundStateDouble } from '../../fakes/inbound-state.js';
import type { ActionEvent, BridgeInbound, ConversationStopEvent, InboundMessage } from '../../../src/bridge/types.js';
import { silentLogger, type Logger } from '../../../src/log.js';
import { createSlackPlatform, parseSlackConfig, type SlackPlatform } from '../../../src/platforms/slack/index.js';
import type { FakeSlack } from '../../fakes/slack/index.js';
import { openSecurity } from '../../fixtures/config-defaults.js';
import { pollUntil } from '../poll-until.js';

/** A configuration with the Slack settings read from `env` and a `slack:` section, as loadConfig reads them. */
export function baseConfig(env: NodeJS.ProcessEnv, slack: Record<string, unknown> = {}, extra: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: '', routes: [], approvers: [], queueDepth: 5, maxConcurrent: 4, permissionTimeoutSecs: 600,
    dataDir: './data', host: '127.0.0.1', port: 0, shutdownGraceSecs: 2, logLevel: 'silent',
    platforms: { slack: parseSlackConfig(env, { api_retries: 0, reconnect_base_ms: 50, reconnect_max_ms: 200, client_ping_timeout_ms: 2000, api_timeout_ms: 3000, ...slack }) },
    ...extra,
  };
}

export function slackEnv(fake: FakeSlack, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { SLACK_BOT_TOKEN: fake.botToken, SLACK_APP_TOKEN: fake.appToken, SLACK_API_URL: fake.apiUrl, ...extra };
}

export function makePlatform(fake: FakeSlack, slack: Record<string, unknown> = {}, env: Record<string, string> = {}, logger: Logger = silentLogger): SlackPlatform {
  return createSlackPlatform({ config: baseConfig(slackEnv(fake, env), slack), logger });
}

/** A bridge stand-in that records what the platform hands it. */
export class RecordingBridge extends InboundStateDouble implements BridgeInbound {
  readonly messages: InboundMessage[] = [];
  readonly actions: ActionEvent[] = [];
  /** Stops a platform asked for by conversation (Slack's agent session Stop). */
  readonly stops: ConversationStopEvent[] = [];
  private waiters: Array<() => void> = [];
  async handleMessage(msg: InboundMessage): Promise<void> {
    this.messages.push(msg);
    this.accepted(msg);
    this.wake();
  }
  async handleAction(ev: ActionEvent): Promise<void> {
    this.actions.push(ev);
    this.wake();
  }
  async handleStop(ev: ConversationStopEvent): Promise<'asked'> {
    this.stops.push(ev);
    this.wake();
    return 'asked';
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
  async waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = check();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => { const t = setTimeout(r, 200); this.waiters.push(() => { clearTimeout(t); r(); }); });
    }
  }
}

/** Poll `check` every few ms until it holds (for state that emits no event, like status()). */
export function until<T>(check: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  return pollUntil(check, what, timeoutMs);
}
