// A fake Gemini API (POST /v1beta/models/<model>:streamGenerateContent?alt=sse) as gemini-cli
// uses it: SSE chunks of GenerateContentResponse with text, thought and functionCall parts,
// Google's JSON error bodies; :generateContent answers the CLI's model-router classifier.
import type { ServerResponse } from 'node:http';
import { ModelApiServer, pieces, sse, type ModelReply, type ModelCall, type RecordedRequest } from './model-api-server.js';

const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };
const usageMetadata = { promptTokenCount: 30, candidatesTokenCount: 6, totalTokenCount: 36, cachedContentTokenCount: 4 };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toolResults(body: any): string[] {
  const contents: Array<{ role?: string; parts?: Array<{ functionResponse?: { response?: unknown } }> }> = Array.isArray(body?.contents) ? body.contents : [];
  const last = contents.filter((c) => c.role === 'user').at(-1);
  return (last?.parts ?? []).filter((p) => p.functionResponse).map((p) => JSON.stringify(p.functionResponse?.response ?? null));
}

function chunk(parts: object[], last: boolean): object {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    ...(last ? { usageMetadata } : {}),
    modelVersion: 'gemini-fake',
    responseId: 'fake-response',
  };
}

function stream(res: ServerResponse, reply: ModelReply): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (reply.hang) { res.flushHeaders(); return; }
  const all: object[][] = [];
  if (reply.thinking) for (const p of pieces(reply.thinking)) all.push([{ text: p, thought: true }]);
  if (reply.text) for (const p of pieces(reply.text)) all.push([{ text: p }]);
  if (reply.tool) all.push([{ functionCall: { name: reply.tool.name, args: reply.tool.input } }]);
  if (all.length === 0) all.push([{ text: '' }]);
  all.forEach((parts, i) => sse(res, chunk(parts, i === all.length - 1)));
  res.end();
}

/** How the fake answers gemini's side requests (:generateContent, e.g. the model router's classifier). */
export interface SideRequests {
  /** An HTTP error status for every side request; unset: the classifier's verdict. */
  status?: number;
  message?: string;
  /** The side requests seen. */
  readonly calls: RecordedRequest[];
}

export class FakeGemini extends ModelApiServer {
  readonly side: SideRequests;

  constructor() {
    const side: SideRequests = { calls: [] };
    super({
      isModelCall: (r) => r.method === 'POST' && /\/models\/[^/:]+:streamGenerateContent/.test(r.path),
      toolResults,
      stream: (res, reply: ModelReply, _call: ModelCall) => stream(res, reply),
      error(res, status, message) {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: status, message, status: STATUS_NAMES[status] ?? 'UNKNOWN' } }));
      },
      other(r, res) {
        if (/:countTokens/.test(r.path)) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"totalTokens":30}');
          return true;
        }
        if (!/:generateContent/.test(r.path)) return false;
        side.calls.push(r);
        if (side.status !== undefined) {
          res.writeHead(side.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: side.status, message: side.message ?? `fake error ${side.status}`, status: STATUS_NAMES[side.status] ?? 'UNKNOWN' } }));
          return true;
        }
        // gemini's model router (model "auto") asks a small model to classify the request.
        const verdict = JSON.stringify({ complexity_reasoning: 'a short request', complexity_score: 5, reasoning: 'a short request', model_choice: 'flash' });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(chunk([{ text: verdict }], true)));
        return true;
      },
    });
    this.side = side;
  }
}
