/**
 * A real redis-server on a free loopback port, for the tests of everything shared through Redis
 * (Debian's redis-server; .ci/run installs it when missing).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Ends the server (SIGKILL: what a crashed Redis looks like to its clients). */
  stop(): void;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts redis-server on `port` (default: a free one) and resolves once it accepts connections. */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).error) {
    throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run does this)');
  }
  const p = port ?? (await freePort());
  const server: ChildProcess = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) resolve();
    });
    server.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
  });
  return { url: `redis://127.0.0.1:${p}`, port: p, stop: () => void server.kill('SIGKILL') };
}
