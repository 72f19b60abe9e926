/**
 * Replicas: what several turnbridge processes behind one Slack app / Discord bot share beyond
 * the state store: heartbeats and forwarded clicks (Redis pub/sub). Imported on demand by
 * main.ts when REDIS_URL is set (it loads ioredis).
 */
export { createReplicaBus, defaultReplicaId, type Forwarded, type ReplicaBus, type ReplicaInfo } from './replica-bus.js';
export { createConversationGate, type ConversationGate, type ConversationGateOptions, type Ticket } from './conversation-gate.js';
export { createTakeover, type Takeover, type TakeoverOptions } from './takeover.js';
