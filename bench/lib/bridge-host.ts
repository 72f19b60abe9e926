/**
 * The bridge under benchmark, as its own process: the real `turnbridge start` path
 * (startTurnbridge: config file, session store, HTTP server, the platform whose token is in the
 * environment) pointed at a fake in the parent. The parent reads this process's CPU time and
 * memory through IPC, so the fake, the driver and the agents are never counted.
 *   node --import tsx bench/lib/bridge-host.ts <turnbridge.yaml>
 * IPC: {cmd:'usage'} -> {cpuUs, rss, hwm}; {cmd:'stop'} -> shutdown, exit.
 */
import { readFileSync } from 'node:fs';
import { startTurnbridge } from '../../src/main.js';

export interface HostUsage { cpuUs: number; rss: number; hwm: number }

function statusKiB(field: string): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const running = await startTurnbridge({ configFile: process.argv[2], print: () => {} });
process.on('message', (msg: { cmd: string }) => {
  if (msg.cmd === 'usage') {
    const u = process.cpuUsage();
    const usage: HostUsage = { cpuUs: u.user + u.system, rss: statusKiB('VmRSS'), hwm: statusKiB('VmHWM') };
    process.send!(usage);
  } else if (msg.cmd === 'stop') {
    void running.shutdown().finally(() => process.exit(0));
  }
});
process.send!({ ready: true });
