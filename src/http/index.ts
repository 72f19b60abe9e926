export { createHttpServer } from './server.js';
export type { HttpMount, HttpServer, HttpServerOptions, ReadinessSource, RouteHandler } from './server.js';
export { readJsonBody, sendJson, sendText } from './respond.js';
export { createHostCheck, hostnameOf, isLoopbackBind, isLoopbackHost } from './host-check.js';
export { bearerToken, sameSecret } from './bearer.js';
