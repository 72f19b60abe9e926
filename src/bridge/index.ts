/**
 * The bridge: chat messages in, agent turns out, behaviour only (what it remembers is the
 * state's, src/state/). createBridge (create-bridge.ts) wires its rooms, lowest first: access/
 * (who may, and which route and profile), approvals/ (permission requests: rules, prompts,
 * decisions), turns/ (a message accepted, queued, run and finished; Stop, Run again, crash
 * recovery). types.ts is what platforms hand it (InboundMessage, ActionEvent) and what they are
 * (Platform); metrics.ts its Prometheus metrics; action-forwarding.ts carries clicks to the
 * replica that holds the turn.
 */
export type { ActionEvent, Bridge, BridgeInbound, BridgeStats, InboundMessage, Platform, PlatformFactoryOptions, PlatformStatus } from './types.js';
export { createBridge, type CoreBridge, type CreateBridgeOptions } from './create-bridge.js';
export { createMetrics, type Metrics } from './metrics.js';
export { createPermissionBroker, type PermissionBroker } from './approvals/index.js';
