// A fake Anthropic Messages API (POST /v1/messages, stream: true): the SSE events claude reads
// (message_start, content_block_start/delta/stop with text, thinking and tool_use blocks,
// message_delta, message_stop) and Anthropic's JSON error bodies.
import type { ServerResponse } from 'node:http';
import { ModelApiServer, pieces, sse, type ModelReply, type ModelCall } from './model-api-server.js';

const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 429: 'rate_limit_error', 529: 'overloaded_error' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toolResults(body: any): string[] {
  // Only the latest user message counts: earlier turns' results are history.
  const last = (Array.isArray(body?.messages) ? body.messages : []).filter((m: { role?: string }) => m.role === 'user').at(-1);
  const blocks: Array<{ type?: string; content?: unknown }> = Array.isArray(last?.content) ? last.content : [];
  return blocks.filter((b) => b?.type === 'tool_result').map((b) =>
    typeof b.content === 'string' ? b.content : Array.isArray(b.content) ? b.content.map((c: { text?: string }) => c.text ?? '').join('') : '');
}

function stream(res: ServerResponse, reply: ModelReply, call: ModelCall): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (type: string, data: object) => sse(res, { type, ...data }, type);
  const model = typeof call.request.body?.model === 'string' ? call.request.body.model : 'claude-fake';
  ev('message_start', { message: { id: `msg_fake_${call.index}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } } });
  if (reply.hang) return;
  let index = 0;
  if (reply.thinking) {
    ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const p of pieces(reply.thinking)) ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } });
    ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'fake-signature' } });
    ev('content_block_stop', { index });
    index++;
  }
  if (reply.text) {
    ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const p of pieces(reply.text)) ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } });
    ev('content_block_stop', { index });
    index++;
  }
  if (reply.tool) {
    ev('content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_fake_${call.index}`, name: reply.tool.name, input: {} } });
    ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } });
    ev('content_block_stop', { index });
  }
  ev('message_delta', { delta: { stop_reason: reply.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 7 } });
  ev('message_stop', {});
  res.end();
}

export class FakeAnthropic extends ModelApiServer {
  constructor() {
    super({
      isModelCall: (r) => r.method === 'POST' && /^\/v1\/messages(\?|$)/.test(r.path),
      toolResults,
      stream,
      error(res, status, message) {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
        res.end(JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } }));
      },
      other(r, res) {
        if (!r.path.startsWith('/v1/messages/count_tokens')) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"input_tokens":12}');
        return true;
      },
    });
  }
}
