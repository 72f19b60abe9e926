/**
 * Redis, for several replicas behind one app (REDIS_URL): the one owner of the process's
 * connections (ioredis) and of their one health value, which the features that share through
 * Redis subscribe to (the state store, the replica bus, the conversation gate, takeover, the
 * shared slots and the shared platform budgets). Nothing else creates a Redis client.
 */
export { connectRedis, followSharing, redactedUrl, type RedisConnectOptions, type RedisConnections, type RedisHealth, type SharingState } from './connections.js';
