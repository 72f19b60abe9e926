// A loopback HTTP(S) proxy that refuses everything and records who asked: the real CLIs run with
// HTTPS_PROXY/HTTP_PROXY pointing here (NO_PROXY for 127.0.0.1), so any request that would leave
// the machine (telemetry, update checks, a base URL not pointed at a fake) shows up in `attempts`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class ProxyTrap {
  readonly attempts: string[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      this.attempts.push(`${req.method} ${req.url}`);
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('blocked by the test proxy trap');
    });
    this.server.on('connect', (req, socket) => {
      this.attempts.push(`CONNECT ${req.url}`);
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
