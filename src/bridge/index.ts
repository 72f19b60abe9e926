export type { Bridge, BridgeConfig, BridgeStats, RouteConfig } from './api.js';
export type { ActionEvent, BridgeInbound, InboundMessage, Platform, PlatformFactoryOptions, PlatformStatus } from './types.js';
export { createBridge, type CoreBridge, type CreateBridgeOptions } from './create-bridge.js';
export { createSessionStore, type SessionRecord, type SessionStore, type SessionStoreOptions } from '../state/index.js';
export { createMetrics, type Metrics } from './metrics.js';
export { createPermissionBroker, type PermissionBroker } from './permission-broker.js';
export { conversationKey } from '../state/index.js';
export { formatInputPreview } from './input-preview.js';
export { loadConfig, type LoadConfigOptions } from '../config/index.js';
