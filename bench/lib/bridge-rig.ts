/**
 * One bridge process (bench/lib/bridge-host.ts) in front of one driver's fake, and the turns
 * sent through it: when the event went out, when the agent started, printed its first partial
 * and exited (the agent's own log), when the fake saw the first text and the final text.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { clock, type Driver } from './bridge-drivers.js';
import type { HostUsage } from './bridge-host.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const AGENT = join(ROOT, 'bench/agents/instant.sh');
/** tsx's loader by path: the bridge process runs in its own directory (no .env of the repo). */
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

export interface TurnTimes {
  id: number;
  event: number;
  visible?: number;
  final?: number;
  /** From the agent's log (epoch ms). */
  started?: number;
  firstPartial?: number;
  exited?: number;
}

/**
 * What the agent does: `filler` partials "x" after the first (or, `fillerInOne`, that text in
 * one partial), wait at the FIFO `gate`, then pause
 * `pauseMs` before the last partial, so the first text and the final text are two edits apart.
 */
export interface TurnShape { filler?: number; fillerInOne?: boolean; gate?: string; pauseMs?: number; timeoutMs?: number }
const PAUSE_MS = 300;

interface Pending { times: TurnTimes; done: () => void }

export class BridgeRig {
  readonly dir = mkdtempSync(join(tmpdir(), 'tb-bridge-bench-'));
  /**
   * The agents' log, relative: each agent appends to it in its own working directory (its
   * conversation's workspace under work/), the one place besides its HOME and a private /tmp the
   * default agent box lets it write and the bridge keeps.
   */
  static readonly LOG = 'bench-agent.log';
  /**
   * The profile's own directory, where the gate FIFOs go too: the box shows it read-only. Not `dir`
   * itself: that holds the workspace root, and its read-only view hid the agents' writable cwd.
   */
  readonly gateDir = join(this.dir, 'profile');
  private host!: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private readonly turns = new Map<number, TurnTimes>();
  private replies: Array<(u: HostUsage) => void> = [];
  private nextId = 1;

  constructor(readonly driver: Driver) {
    driver.onCall((call) => {
      for (const m of call.json.matchAll(/p(\d+)(first|last)/g)) {
        const p = this.pending.get(Number(m[1]));
        if (!p) continue;
        p.times.visible ??= call.at;
        if (m[2] === 'last' && call.final && p.times.final === undefined) {
          p.times.final = call.at;
          this.pending.delete(p.times.id);
          p.done();
        }
      }
    });
  }

  async start(maxConcurrent: number): Promise<void> {
    mkdirSync(this.gateDir);
    const profile = join(this.gateDir, 'profile.yaml');
    writeFileSync(profile, stringify({ command: 'bash', args: [AGENT, BridgeRig.LOG, this.gateDir], timeout_secs: 600 }));
    const config = join(this.dir, 'turnbridge.yaml');
    writeFileSync(config, stringify({
      default_profile: profile, max_concurrent: maxConcurrent, queue_depth: 5, data_dir: join(this.dir, 'data'), agent: { workspace: join(this.dir, 'work') },
      host: '127.0.0.1', port: 0, log_level: 'info', [this.driver.name]: this.driver.section,
    }));
    // A clean environment: the bridge reads its settings from the file and the fake's tokens.
    // Access open and no per-person limits: the fake's users are on no access list (the closed
    // default would answer "you are not let in"), and one Slack user sends 10 (and 500) turns at
    // once (the default 2 running + 5 waiting per person would answer the rest "Busy").
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? this.dir, NODE_ENV: 'production',
      TURNBRIDGE_ACCESS: 'open', TURNBRIDGE_MAX_RUNNING_PER_USER: '1000', TURNBRIDGE_MAX_WAITING_PER_USER: '1000', TURNBRIDGE_MAX_WAITING: '100000', ...this.driver.env,
      // The default configuration (the agent box, auto) unless BENCH_BRIDGE_SANDBOX says otherwise.
      ...(process.env.BENCH_BRIDGE_SANDBOX ? { TURNBRIDGE_SANDBOX: process.env.BENCH_BRIDGE_SANDBOX } : {}),
    };
    this.host = fork(join(ROOT, 'bench/lib/bridge-host.ts'), [config], {
      execArgv: ['--import', TSX, ...(process.env.BENCH_HOST_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_HOST_PROF}`] : [])], env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], cwd: this.dir,
    });
    await new Promise<void>((ok, fail) => {
      this.host.once('exit', (code) => fail(new Error(`the bridge process exited (${code}) before it was ready`)));
      this.host.on('message', (m: HostUsage | { ready: true }) => {
        if ('ready' in m) ok();
        else this.replies.shift()?.(m);
      });
    });
  }

  get pid(): number {
    return this.host.pid!;
  }

  usage(): Promise<HostUsage> {
    return new Promise((ok) => {
      this.replies.push(ok);
      this.host.send({ cmd: 'usage' });
    });
  }

  /** Send one turn; resolves when its final text was seen (or rejects after `timeoutMs`). */
  turn(o: TurnShape = {}): Promise<TurnTimes> {
    return this.send(o).done;
  }

  /** Send one turn: its id at once, `sent` once the platform took the event, `done` once its final text was seen. */
  send({ filler = 0, fillerInOne = false, gate = '-', pauseMs = PAUSE_MS, timeoutMs = 120_000 }: TurnShape = {}): { id: number; sent: Promise<void>; done: Promise<TurnTimes> } {
    const id = this.nextId++;
    const times: TurnTimes = { id, event: 0 };
    this.turns.set(id, times);
    const final = new Promise<void>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`${this.driver.name}: turn ${id} not final after ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(id, { times, done: () => { clearTimeout(timer); ok(); } });
    });
    const sent = this.driver.send(id, `q${id} ${filler}${fillerInOne ? 'c' : ''} ${gate} ${pauseMs}`).then((at) => { times.event = at; });
    const done = sent.then(() => final).then(() => times);
    final.catch(() => {}); // reported through done
    return { id, sent, done };
  }

  /** Has the fake shown turn `id`'s first text yet? */
  visible(id: number): boolean {
    return this.turns.get(id)?.visible !== undefined;
  }

  /** Merge the agents' log lines ("id started first exit", epoch seconds) from every workspace into the turns. */
  readAgentLog(): void {
    const data = join(this.dir, 'work');
    const logs = readdirSync(data, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(BridgeRig.LOG));
    for (const file of logs) {
      for (const line of readFileSync(join(data, file), 'utf8').split('\n')) {
        const [id, started, first, exited] = line.split(' ').map(Number);
        const t = this.turns.get(id!);
        if (!t || exited === undefined || Number.isNaN(exited)) continue;
        Object.assign(t, { started: started! * 1000, firstPartial: first! * 1000, exited: exited * 1000 });
      }
    }
  }

  /**
   * The floor: the same agent spawned directly with a turn piped in, as the runner would.
   * Resolves the time from the spawn call to the agent's first instruction.
   */
  floor(): Promise<number> {
    const log = join(this.dir, 'floor.log');
    const turn = `${JSON.stringify({ type: 'turn', message: 'q0 0 - 0', session_id: '', session_name: 'default', attachments: [], permission: false, protocol_version: '0.4' })}\n`;
    return new Promise((ok, fail) => {
      rmSync(log, { force: true });
      const at = clock();
      const child = spawn('bash', [AGENT, log, this.dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
      child.stdin.end(turn);
      child.on('error', fail);
      child.on('close', () => ok(Number(readFileSync(log, 'utf8').split(' ')[1]) * 1000 - at));
    });
  }

  async close(): Promise<void> {
    if (this.host.exitCode === null) {
      const exited = new Promise((ok) => this.host.once('exit', ok));
      this.host.send({ cmd: 'stop' });
      await Promise.race([exited, new Promise((ok) => setTimeout(ok, 15_000))]);
      if (this.host.exitCode === null) this.host.kill('SIGKILL');
    }
    await this.driver.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
