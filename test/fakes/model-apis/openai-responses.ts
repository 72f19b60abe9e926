// A fake OpenAI Responses API (POST /v1/responses, stream: true) as codex exec uses it: SSE
// response.* events with reasoning summaries, output_text deltas, custom and function tool calls,
// OpenAI's JSON error bodies. WebSocket upgrades are refused, so codex falls back to HTTPS.
import type { ServerResponse } from 'node:http';
import { ModelApiServer, pieces, sse, type ModelReply, type ModelCall } from './model-api-server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toolResults(body: any): string[] {
  const input: Array<{ type?: string; role?: string; output?: unknown }> = Array.isArray(body?.input) ? body.input : [];
  let lastUser = -1;
  input.forEach((item, i) => { if (item.type === 'message' && item.role === 'user') lastUser = i; });
  return input.slice(lastUser + 1)
    .filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
    .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}

function stream(res: ServerResponse, reply: ModelReply, call: ModelCall): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let seq = 0;
  const ev = (type: string, data: object) => sse(res, { type, sequence_number: seq++, ...data }, type);
  const id = `resp_fake_${call.index}`;
  const base = { id, object: 'response', created_at: 1_700_000_000, model: call.request.body?.model ?? 'gpt-fake' };
  ev('response.created', { response: { ...base, status: 'in_progress', output: [] } });
  if (reply.hang) return;
  const output: object[] = [];
  const item = (item: { id: string }, during: (idx: number) => void, done: object) => {
    const idx = output.length;
    ev('response.output_item.added', { output_index: idx, item });
    during(idx);
    ev('response.output_item.done', { output_index: idx, item: done });
    output.push(done);
  };
  if (reply.thinking) {
    const rid = `rs_fake_${call.index}`;
    const text = reply.thinking;
    item({ id: rid, type: 'reasoning', summary: [] } as { id: string }, (idx) => {
      ev('response.reasoning_summary_part.added', { item_id: rid, output_index: idx, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const p of pieces(text)) ev('response.reasoning_summary_text.delta', { item_id: rid, output_index: idx, summary_index: 0, delta: p });
      ev('response.reasoning_summary_text.done', { item_id: rid, output_index: idx, summary_index: 0, text });
      ev('response.reasoning_summary_part.done', { item_id: rid, output_index: idx, summary_index: 0, part: { type: 'summary_text', text } });
    }, { id: rid, type: 'reasoning', summary: [{ type: 'summary_text', text }] });
  }
  if (reply.text) {
    const mid = `msg_fake_${call.index}`;
    const text = reply.text;
    item({ id: mid, type: 'message', role: 'assistant', status: 'in_progress', content: [] } as { id: string }, (idx) => {
      ev('response.content_part.added', { item_id: mid, output_index: idx, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const p of pieces(text)) ev('response.output_text.delta', { item_id: mid, output_index: idx, content_index: 0, delta: p });
      ev('response.output_text.done', { item_id: mid, output_index: idx, content_index: 0, text });
      ev('response.content_part.done', { item_id: mid, output_index: idx, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    }, { id: mid, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
  }
  if (reply.tool) {
    const cid = `call_fake_${call.index}`;
    const fid = `ctc_fake_${call.index}`;
    const { name, input } = reply.tool;
    if (typeof input === 'string') {
      // A freeform (custom) tool such as codex's `exec` code-mode tool.
      item({ id: fid, type: 'custom_tool_call', call_id: cid, name, input: '' } as { id: string }, (idx) => {
        ev('response.custom_tool_call_input.delta', { item_id: fid, output_index: idx, delta: input });
        ev('response.custom_tool_call_input.done', { item_id: fid, output_index: idx, input });
      }, { id: fid, type: 'custom_tool_call', status: 'completed', call_id: cid, name, input });
    } else {
      const args = JSON.stringify(input);
      item({ id: fid, type: 'function_call', call_id: cid, name, arguments: '' } as { id: string }, (idx) => {
        ev('response.function_call_arguments.delta', { item_id: fid, output_index: idx, delta: args });
        ev('response.function_call_arguments.done', { item_id: fid, output_index: idx, arguments: args });
      }, { id: fid, type: 'function_call', status: 'completed', call_id: cid, name, arguments: args });
    }
  }
  ev('response.completed', {
    response: { ...base, status: 'completed', output, usage: { input_tokens: 40, input_tokens_details: { cached_tokens: 8 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 49 } },
  });
  res.end();
}

export class FakeOpenAiResponses extends ModelApiServer {
  constructor() {
    super({
      isModelCall: (r) => r.method === 'POST' && /\/responses(\?|$)/.test(r.path),
      toolResults,
      stream,
      error(res, status, message) {
        res.writeHead(status, { 'content-type': 'application/json' });
        const type = status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error';
        res.end(JSON.stringify({ error: { message, type, code: status === 401 ? 'invalid_api_key' : null, param: null } }));
      },
    });
  }
}
