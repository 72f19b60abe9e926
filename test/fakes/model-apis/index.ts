export { FakeAnthropic } from './anthropic.js';
export { FakeOpenAiResponses } from './openai-responses.js';
export { FakeGemini } from './gemini.js';
export { ProxyTrap } from './proxy-trap.js';
export { ModelApiServer, stringsUnder } from './model-api-server.js';
export type { ModelReply, ModelCall, ModelScript, RecordedRequest } from './model-api-server.js';
