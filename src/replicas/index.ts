/**
 * Replicas: what several turnbridge processes behind one Slack app / Discord bot share beyond
 * the state store: heartbeats and forwarded clicks (Redis pub/sub). Imported on demand by
 * main.ts when REDIS_URL is set; each feature is given the process's Redis connections (redis/).
 */
export { createReplicaBus, defaultReplicaId, type Forwarded, type ReplicaBus, type ReplicaInfo } from './replica-bus.js';
export { createConversationGate, type ConversationGate, type ConversationGateOptions, type Ticket } from './conversation-gate.js';
export { createTakeover, type Takeover, type TakeoverOptions } from './takeover.js';
export { createSharedSlots, type SharedPermit, type SharedSlots, type SharedSlotsOptions, type SharedSlotsState } from './shared-slots.js';
