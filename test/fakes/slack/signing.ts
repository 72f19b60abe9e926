import { createHmac } from 'node:crypto';

/** Headers Slack sends with an HTTP-mode request: v0 HMAC-SHA256 over "v0:<ts>:<body>". */
export function signSlackRequest(secret: string, body: string, timestampSecs = Math.floor(Date.now() / 1000)): Record<string, string> {
  const sig = 'v0=' + createHmac('sha256', secret).update(`v0:${timestampSecs}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(timestampSecs), 'x-slack-signature': sig };
}
