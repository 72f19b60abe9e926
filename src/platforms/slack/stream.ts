/**
 * Native Slack streaming for the delivery layer: chat.startStream / appendStream / stopStream in
 * `markdown_text` mode (one mode per stream: Slack answers streaming_mode_mismatch otherwise).
 * Streams are thread replies only (Slack: "streamed messages should always be replies"), so a
 * conversation without a thread (a top-level DM) uses post + edit. In channels the recipient
 * (user + team) is sent, as Slack requires.
 *
 * auto: an answer meaning "streaming is not available" (unknown_method, not_allowed, ...) turns
 * streaming off for good for the workspace (channel_type_not_supported: for that channel) and
 * start() answers null, so the reply falls back to post + edit. native: those answers are thrown
 * (and logged) on every reply, never remembered. When a start would wait for the Tier 2 budget,
 * auto serves the reply with post + edit and native hands over late (NativeStreaming.lateStart).
 *
 * A route's `options.streaming` (auto | native | edit) sets the mode for the conversations it
 * serves, over the bridge-wide slack.streaming / SLACK_STREAMING (streamingFor). Why a route may
 * want post + edit: a native stream in a channel is sent to one recipient (chat.startStream's
 * recipient_user_id, "the user to receive the streaming text"); one integrator reports the
 * others see a placeholder until it stops. Slack's pages do not say, so the default stays native
 * where Slack allows it and a route can choose.
 */
import type { Conversation, MessageContent, MessageRef, UserRef } from '../../chat.js';
import type { webApi } from '@slack/bolt';
import { placeOf } from '../../bridge/access/index.js';
import type { BridgeConfig, RouteConfig } from '../../config/types.js';
import type { Logger } from '../../log.js';
import type { NativeStream, NativeStreaming, RateBudget } from '../../delivery/surface.js';
import { renderMessage } from './blocks.js';
import { SLACK_STREAMING_MODES, type SlackStreaming } from './config.js';
import { callSlack, decodeMessageId, encodeMessageId, slackErrorCode, toSurfaceError } from './web-api.js';

/** Slack's stream budgets, per workspace, before headroom. */
export const SLACK_STREAM_LIMITS = {
  /** chat.startStream and chat.stopStream: Tier 2. */
  startStopPerMinute: 20,
  /** chat.appendStream: Tier 4. */
  appendPerMinute: 100,
} as const;

/** markdown_text is capped at 12,000 per call and per streamed message; parts stay well under. */
export const STREAM_MAX_CHARS = 10_000;

/** Answers that mean "no native streaming in this workspace for this app". */
const UNSUPPORTED = new Set([
  'unknown_method', 'not_allowed', 'not_allowed_token_type', 'missing_scope', 'feature_not_enabled',
  'method_deprecated', 'not_supported', 'team_not_enabled',
]);
/** Answers that mean "not in this channel". */
const UNSUPPORTED_HERE = new Set(['channel_type_not_supported']);
/** Answers that end one streamed message (nothing more can be appended to it). */
const ENDED = new Set([
  'message_not_in_streaming_state', 'stopped_by_user', 'streaming_state_conflict', 'streaming_mode_mismatch',
  'message_not_found', 'channel_not_found', 'msg_too_long', 'markdown_text_too_long', 'msg_blocks_too_long',
  ...UNSUPPORTED, ...UNSUPPORTED_HERE,
]);

/* Where native streaming is used: a route's `options.streaming`, else the bridge-wide mode. */

type Routes = Pick<BridgeConfig, 'routes' | 'dm'>;

const forSlack = (r: RouteConfig): boolean => r.platform === undefined || r.platform === 'slack';

/** The route serving a Slack conversation (a DM's own, for a D… channel), if any. */
export function slackRouteOf(config: Routes, c: Conversation): RouteConfig | undefined {
  const place = placeOf(config, { platform: 'slack', conversation: c, direct: c.channel.startsWith('D') });
  return place.kind === 'default' ? undefined : place.route;
}

/** The streaming mode for a conversation: its route's `options.streaming`, else `fallback`. */
export function streamingFor(config: Routes, fallback: SlackStreaming, c: Conversation): SlackStreaming {
  const v = slackRouteOf(config, c)?.options?.streaming;
  return typeof v === 'string' && (SLACK_STREAMING_MODES as readonly string[]).includes(v) ? (v as SlackStreaming) : fallback;
}

/** Whether some Slack route streams even though the bridge-wide mode is edit. */
export function anyRouteStreams(config: Routes): boolean {
  return [...config.routes, ...(config.dm ? [config.dm] : [])].some((r) => forSlack(r) && (r.options?.streaming === 'auto' || r.options?.streaming === 'native'));
}

export interface SlackStreamingOptions {
  client: webApi.WebClient;
  /** The bridge-wide mode (slack.streaming / SLACK_STREAMING). */
  mode: SlackStreaming;
  /** The mode for one conversation (a route's `options.streaming`); default `mode`. */
  modeOf?: (c: Conversation) => SlackStreaming;
  /** Multiplies the budgets (tests run against a time-scaled fake). */
  rateScale: number;
  headroom: number;
  logger: Logger;
  /** The agent session status a stop leaves the thread in (chat.stopStream `session_status`); undefined: Slack's default. */
  sessionStatus?: (c: Conversation) => string | undefined;
}

const isDm = (c: Conversation): boolean => c.channel.startsWith('D');

export function createSlackStreaming(opts: SlackStreamingOptions): NativeStreaming {
  const { client, logger } = opts;
  const modeOf = (c: Conversation): SlackStreaming => opts.modeOf?.(c) ?? opts.mode;
  /** Workspaces (team id) and channels (team:channel) where Slack said streaming is not available. */
  const unavailable = new Set<string>();
  const scaled = (perMinute: number): number => Math.max(1, Math.floor(perMinute * opts.headroom * opts.rateScale));

  function remember(c: Conversation, code: string): void {
    if (modeOf(c) !== 'auto') return;
    const key = UNSUPPORTED_HERE.has(code) ? `${c.space}:${c.channel}` : c.space;
    if (unavailable.has(key)) return;
    unavailable.add(key);
    logger.info({ err: code, scope: UNSUPPORTED_HERE.has(code) ? 'channel' : 'workspace', team: c.space, channel: c.channel },
      'slack native streaming not available; replies here use post + chat.update from now on');
  }

  const budgets = (op: 'start' | 'append' | 'stop', c: Conversation): RateBudget[] => op === 'append'
    ? [{ key: `slack:${c.space}:chat.appendStream`, perMinute: scaled(SLACK_STREAM_LIMITS.appendPerMinute), burst: 1 }]
    : [{ key: `slack:${c.space}:chat.${op}Stream`, perMinute: scaled(SLACK_STREAM_LIMITS.startStopPerMinute), burst: 1 }];

  function openStream(c: Conversation, ts: string): NativeStream {
    const channel = c.channel;
    let ended = false;
    const fail = (e: unknown, method: string): Error => {
      const code = slackErrorCode(e);
      if (code && ENDED.has(code)) {
        ended = true;
        if (UNSUPPORTED.has(code) || UNSUPPORTED_HERE.has(code)) remember(c, code);
      }
      return toSurfaceError(e, method);
    };
    return {
      ref: { id: encodeMessageId(channel, ts), conversation: c },
      get ended() {
        return ended;
      },
      async append(markdown: string): Promise<void> {
        try {
          await client.chat.appendStream({ channel, ts, markdown_text: markdown });
        } catch (e) {
          throw fail(e, 'chat.appendStream');
        }
      },
      async stop(final: MessageContent): Promise<void> {
        const blocks = final.status || final.footer ? renderMessage({ text: '', status: final.status, tone: final.tone, footer: final.footer }).blocks : undefined;
        const session = opts.sessionStatus?.(c);
        try {
          await client.chat.stopStream({
            channel, ts,
            ...(final.text ? { markdown_text: final.text } : {}),
            ...(blocks ? { blocks: blocks as never } : {}),
            ...(session ? { session_status: session } : {}),
          });
        } catch (e) {
          throw fail(e, 'chat.stopStream');
        }
      },
    };
  }

  const available = (c: Conversation): boolean => {
    const mode = modeOf(c);
    return c.thread !== '' && mode !== 'edit' && !(mode === 'auto' && (unavailable.has(c.space) || unavailable.has(`${c.space}:${c.channel}`)));
  };

  return {
    maxChars: STREAM_MAX_CHARS,
    budgets,
    available,
    async stopOrphan(ref: MessageRef, final: MessageContent): Promise<void> {
      const { channel, ts } = decodeMessageId(ref.id);
      try {
        await openStream(ref.conversation, ts).stop(final);
      } catch (e) {
        const code = slackErrorCode(e);
        // Slack already ended it (it times streams out): nothing is left streaming.
        if (code && ENDED.has(code)) return;
        logger.debug({ err: code, channel }, 'slack: stopping an orphaned stream failed');
        throw e;
      }
    },
    // Tier 2 starts (~18/min) are short in a busy workspace: auto serves such a reply with post +
    // edit; native shows the first text through edits and hands over to the stream when it starts.
    lateStart: (c) => (modeOf(c) === 'native' ? 'hand-over' : 'edit'),
    async start(c: Conversation, o: { markdown: string; recipient?: UserRef }): Promise<NativeStream | null> {
      if (!available(c)) return null;
      const recipient = o.recipient && !isDm(c) ? { recipient_user_id: o.recipient.id, recipient_team_id: c.space } : {};
      try {
        const res = await callSlack('chat.startStream', () => client.chat.startStream({
          channel: c.channel, thread_ts: c.thread, markdown_text: o.markdown, ...recipient,
        }));
        if (!res.ts) throw new Error('chat.startStream answered ok without a ts');
        return openStream(c, res.ts);
      } catch (e) {
        const code = (e as { found?: unknown }).found;
        const mode = modeOf(c);
        if (mode === 'auto' && typeof code === 'string' && (UNSUPPORTED.has(code) || UNSUPPORTED_HERE.has(code))) {
          remember(c, code);
          return null;
        }
        if (typeof code === 'string' && (UNSUPPORTED.has(code) || UNSUPPORTED_HERE.has(code))) {
          logger.error({ err: code }, 'slack native streaming refused (SLACK_STREAMING=native); set SLACK_STREAMING=auto or edit');
        }
        throw e;
      }
    },
  };
}
