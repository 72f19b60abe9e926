/**
 * One public port in front of several replicas, as a load balancer puts it: each request goes to
 * the next target in turn; a target that refuses the connection (a killed replica) is skipped for
 * that request and the next one is tried, as a balancer's passive health check does.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** Base URL, e.g. http://127.0.0.1:40123/ */
  readonly url: string;
  /** Base URLs of the replicas (mutable: a restarted replica is put back). */
  targets: string[];
  /** Tests that need one replica to hold given turns: every request goes to this target while set. */
  pin: string | undefined;
  /** Which target served each request, in order. */
  readonly served: string[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const served: string[] = [];
  const proxy: RoundRobinProxy = { url: '', targets, served, pin: undefined, close: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void forward(req, Buffer.concat(chunks), res));
  });
  async function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (typeof v === 'string' && !['host', 'connection', 'content-length'].includes(k)) headers[k] = v;
    }
    for (let tried = 0; tried < proxy.targets.length; tried++) {
      const target = proxy.pin && tried === 0 ? proxy.pin : proxy.targets[next++ % proxy.targets.length]!;
      let answer: Response;
      try {
        answer = await fetch(new URL(req.url ?? '/', target), { method: req.method, headers, ...(body.length ? { body: new Uint8Array(body) } : {}) });
      } catch {
        continue; // refused: that replica is gone, try the next
      }
      served.push(target);
      const text = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(text);
      return;
    }
    res.writeHead(502);
    res.end('no replica answered');
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  Object.assign(proxy, {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  });
  return proxy;
}
