/**
 * `turnbridge doctor` for Slack: the bot token (auth.test), its scopes (x-oauth-scopes, which
 * @slack/web-api puts in response_metadata.scopes), the app token (apps.connections.open, which
 * only hands out a URL: no connection is made, so no event can land here), HTTP mode's URL, and
 * the bot's membership of the channels routes name (conversations.history, limit 1).
 */
import type { BridgeConfig } from '../../config/types.js';
import { webApi } from '@slack/bolt';
import { fail, pass, warn, type CheckResult } from '../../check-result.js';
import type { SlackConfig } from './config.js';
import { SLACK_AGENT_SCOPE, SLACK_BOT_SCOPES } from './scopes.js';
import { slackErrorCode } from './web-api.js';

const S = 'Slack';

function client(cfg: SlackConfig, token: string): webApi.WebClient {
  return new webApi.WebClient(token, {
    slackApiUrl: cfg.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: Math.min(cfg.apiTimeoutMs, 10_000),
    logLevel: webApi.LogLevel.ERROR,
    logger: { debug() {}, info() {}, warn() {}, error() {}, setLevel() {}, getLevel: () => webApi.LogLevel.ERROR, setName() {} },
  });
}

/** Slack's error string, or why the request never got an answer. */
function why(e: unknown): { code?: string; text: string } {
  const code = slackErrorCode(e);
  if (code) return { code, text: code };
  const err = e as { code?: string; statusCode?: number; message?: string };
  if (err?.code === 'slack_webapi_http_error') return { text: `HTTP ${err.statusCode}` };
  return { text: err?.message ?? String(e) };
}

/**
 * Declared an agent: the token has assistant:write (it comes with the declaration). A bot token
 * cannot read the app's event subscriptions, so whether agent_session_stopped is subscribed is
 * said, not checked (the bridge logs it once when Slack warns).
 */
function agentCheck(granted: readonly string[]): CheckResult {
  if (granted.includes(SLACK_AGENT_SCOPE)) {
    return pass(S, `declared an agent (${SLACK_AGENT_SCOPE}): threads show Slack's "Working…" status and its Stop button while a turn runs, if the app subscribes to agent_session_stopped (not readable with a bot token; slack-app-manifest.yaml subscribes it)`);
  }
  return warn(S, `not declared an agent (no ${SLACK_AGENT_SCOPE}): threads show no Slack "Working…" status or Slack Stop button; replies and our own Stop button work`,
    'to have them: api.slack.com/apps -> the app -> Agents -> on (or add features.agent_view from slack-app-manifest.yaml), subscribe to the bot event agent_session_stopped, then Reinstall to Workspace');
}

/** Slack channel ids that routes name for Slack (a route without a platform counts when the id looks like Slack's). */
function slackChannelsOf(config: BridgeConfig): string[] {
  const ids = new Set<string>();
  for (const r of config.routes) {
    const looksSlack = (id: string) => /^[CG][A-Z0-9]{6,}$/.test(id);
    const mine = r.platform === 'slack' || r.platform === undefined;
    if (!mine) continue;
    for (const id of [r.channel, ...(r.allowChannels ?? [])]) {
      if (id && (r.platform === 'slack' || looksSlack(id))) ids.add(id);
    }
  }
  return [...ids];
}

export async function slackDoctorChecks(cfg: SlackConfig, config: BridgeConfig): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  const bot = client(cfg, cfg.botToken);
  let auth: webApi.AuthTestResponse;
  try {
    auth = await bot.auth.test();
  } catch (e) {
    const w = why(e);
    if (w.code) {
      out.push(fail(S, `Slack rejected SLACK_BOT_TOKEN (${w.code})`,
        'copy the Bot User OAuth Token (OAuth & Permissions) into SLACK_BOT_TOKEN; reinstall the app if you changed scopes'));
    } else {
      out.push(fail(S, `cannot reach Slack at ${cfg.apiUrl} (${w.text})`, 'check the network, proxy settings and SLACK_API_URL'));
    }
    return out;
  }
  out.push(pass(S, `bot token valid: ${auth.user ?? auth.user_id} in ${auth.team ?? ''} (${auth.team_id})`.replace(' in  (', ' in (')));

  const granted = auth.response_metadata?.scopes;
  if (granted === undefined) {
    out.push(pass(S, 'token scopes: Slack did not report them (no x-oauth-scopes header); not checked'));
  } else {
    const missing = Object.keys(SLACK_BOT_SCOPES).filter((s) => !granted.includes(s));
    if (missing.length === 0) out.push(pass(S, `token scopes: all ${Object.keys(SLACK_BOT_SCOPES).length} needed are granted`));
    else {
      out.push(fail(S, `token lacks scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (${missing.map((m) => SLACK_BOT_SCOPES[m]).join('; ')})`,
        'add them under OAuth & Permissions > Bot Token Scopes (or create the app from slack-app-manifest.yaml), then Reinstall to Workspace'));
    }
  }

  if (granted !== undefined) out.push(agentCheck(granted));

  if (cfg.mode === 'socket') {
    try {
      await client(cfg, cfg.appToken!).apiCall('apps.connections.open');
      out.push(pass(S, 'app token opens Socket Mode (apps.connections.open)'));
    } catch (e) {
      const w = why(e);
      const fix = w.code === 'missing_scope'
        ? 'the App-Level Token needs the connections:write scope: Basic Information > App-Level Tokens > generate one with it, into SLACK_APP_TOKEN'
        : w.code
          ? 'generate an App-Level Token with connections:write (Basic Information > App-Level Tokens) into SLACK_APP_TOKEN, and turn on Socket Mode'
          : 'check the network, proxy settings and SLACK_API_URL';
      out.push(fail(S, `SLACK_APP_TOKEN cannot open Socket Mode (${w.text})`, fix));
    }
  } else {
    const local = cfg.httpPort !== undefined ? `http://${cfg.httpHost}:${cfg.httpPort}/slack/events` : `http://${config.host}:${config.port}/slack/events`;
    out.push(pass(S, `HTTP mode: SLACK_SIGNING_SECRET set; Slack must reach POST https://<your public host>/slack/events, served here at ${local} (Request URL under Event Subscriptions and Interactivity)`));
  }

  const channels = slackChannelsOf(config);
  if (channels.length === 0) out.push(pass(S, 'channels: none named in routes; the bot answers where it is invited and mentioned, and in DMs'));
  for (const channel of channels) {
    try {
      await bot.conversations.history({ channel, limit: 1 });
      out.push(pass(S, `bot is a member of ${channel}`));
    } catch (e) {
      const w = why(e);
      if (w.code === 'not_in_channel' || w.code === 'channel_not_found') {
        out.push(fail(S, `bot is not in channel ${channel} (${w.code})`, `in that channel type /invite @${auth.user ?? 'turnbridge'} (a private channel must invite the bot before it can see it)`));
      } else {
        out.push(fail(S, `cannot check channel ${channel} (${w.text})`, 'see the scope line above; channels:history / groups:history are needed'));
      }
    }
  }
  return out;
}
