/**
 * Opaque ids the core carries for Slack messages: "<channel>:<ts>". The conversation travels
 * beside the id in MessageRef, so the team is not repeated here.
 */
export interface SlackMessageId {
  channel: string;
  ts: string;
}

export function encodeMessageId(channel: string, ts: string): string {
  return `${channel}:${ts}`;
}

export function decodeMessageId(id: string): SlackMessageId {
  const i = id.indexOf(':');
  if (i <= 0 || i === id.length - 1) throw new Error(`not a Slack message id: ${JSON.stringify(id)} (expected "<channel>:<ts>")`);
  return { channel: id.slice(0, i), ts: id.slice(i + 1) };
}
