/**
 * A TCP proxy on loopback in front of one target (a redis-server), that a test can cut: while
 * paused, every connection through it is closed and new ones are closed as they come, as a network
 * partition looks to the client (its commands fail, it reconnects in vain); resumed, it forwards
 * again. Nothing is buffered across a pause: a command is either forwarded at once or lost with
 * its connection.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface PausableTcpProxy {
  /** The target's URL with the proxy's port, e.g. redis://127.0.0.1:40123 */
  readonly url: string;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startPausableTcpProxy(target: { host: string; port: number }, scheme = 'redis'): Promise<PausableTcpProxy> {
  let paused = false;
  const open = new Set<Socket>();
  const track = (s: Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (paused) return void client.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    pause() {
      paused = true;
      for (const s of open) s.destroy();
    },
    resume() {
      paused = false;
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
