/**
 * HTTP: the bridge's one server (server.ts): /healthz, /readyz, /metrics and the mounts platforms
 * add (Slack's events in HTTP mode, the local page), behind a Host check against DNS rebinding
 * (host-check.ts) and bearer tokens compared in constant time (bearer.ts); respond.ts writes
 * answers. It knows platforms only as mounts and their PlatformStatus.
 */
export { createHttpServer } from './server.js';
export type { HttpMount, HttpServer, HttpServerOptions, ReadinessSource, RouteHandler } from './server.js';
export { readJsonBody, sendJson, sendText } from './respond.js';
export { createHostCheck, hostnameOf, isLoopbackBind } from './host-check.js';
export { bearerToken, sameSecret } from './bearer.js';
