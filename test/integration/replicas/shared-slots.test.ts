/**
 * The cap on running turns shared by replicas (redis-semaphore Semaphore) on a real redis-server:
 * two bridges never run more than the cap together, each in its own arrival order, with the
 * waiting turns showing "queued"; a slot goes back on done, error, Stop, shutdown and while a
 * prompt waits; a holder killed -9 loses its slots after the lock timeout; Redis away means the
 * local cap, said once and shown, until Redis is back.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { createBridge, createMetrics } from '../../../src/bridge/index.js';
import { createSharedSlots, type SharedPermit, type SharedSlots } from '../../../src/replicas/shared-slots.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { startRedisServer, type RedisServer, closeConnections, connectionsTo } from '../../fakes/redis-server.js';
import { ANA, click, conv, fakeRunner, makeConfig, makeMsg, makeProfile, memoryStore, waitFor } from '../../unit/bridge/helpers.js';

let server: RedisServer;
let redis: Redis;
const open: SharedSlots[] = [];
let prefixes = 0;

before(async () => {
  server = await startRedisServer();
  redis = new Redis(server.url);
});
after(async () => {
  for (const s of open) await s.close();
  redis.disconnect();
  await closeConnections();
  server.stop();
});

function slots(limit: number, over: { prefix?: string; lockTimeoutMs?: number; url?: string; logger?: typeof silentLogger } = {}): SharedSlots {
  const s = createSharedSlots({ redis: connectionsTo(over.url ?? server.url), limit, logger: over.logger ?? silentLogger, retryIntervalMs: 5, ...over });
  open.push(s);
  return s;
}

/** Locks in Redis (redis-semaphore keeps a sorted set under `semaphore:<key>`). */
const held = (prefix: string) => redis.zcard(`semaphore:${prefix}:shared-slots`);
/** Polls Redis until `prefix` holds `n` slots (a release is sent in the background). */
async function heldBecomes(prefix: string, n: number, what: string, limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while ((await held(prefix)) !== n) {
    if (Date.now() - start > limitMs) assert.fail(`timed out waiting for ${what}: ${await held(prefix)} held, expected ${n}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** waitFor for a condition that asks Redis. */
async function settled(cond: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; !(await cond()); i++) {
    if (i > 2000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A bridge on its own fake runner; `together` counts agents running across every bridge of a test. */
function replica(shared: SharedSlots, together: { active: number; peak: number }, over: { maxConcurrent?: number; permission?: boolean } = {}) {
  const runner = fakeRunner();
  const surface = createRecordingSurface();
  const base = makeConfig();
  const config = makeConfig({ maxConcurrent: over.maxConcurrent ?? 3, limits: { ...base.limits, runningPerUser: 10, promptWaits: 2 } });
  const started: string[] = [];
  const runTurn: typeof runner.runTurn = (profile, turn, handlers, options) => {
    together.active++;
    together.peak = Math.max(together.peak, together.active);
    started.push(turn.message);
    return runner.runTurn(profile, turn, handlers, options).finally(() => together.active--);
  };
  const bridge = createBridge({
    config, logger: silentLogger, store: memoryStore(), runTurn, sharedSlots: shared, metrics: createMetrics(),
    loadProfile: async () => makeProfile({ permission: over.permission ?? false }),
  });
  bridge.attach(surface);
  return { bridge, runner, surface, started };
}

const statusesIn = (surface: ReturnType<typeof createRecordingSurface>, channel: string) =>
  surface.messagesIn(conv(channel)).flatMap((m) => m.history.map((c) => c.status ?? ''));

describe('shared cap on running turns (TURNBRIDGE_SHARED_MAX_CONCURRENT)', () => {
  it('two bridges run at most the cap together, each in arrival order, the waiting ones shown queued', async () => {
    const prefix = `c${++prefixes}`;
    const together = { active: 0, peak: 0 };
    const sa = slots(2, { prefix });
    const sb = slots(2, { prefix });
    const a = replica(sa, together);
    const b = replica(sb, together);
    for (const n of [1, 2, 3]) await a.bridge.handleMessage(makeMsg({ conversation: conv(`A${n}`), text: `a${n}`, eventId: `a${n}` }));
    await waitFor(() => together.active === 2, 'two agents on A');
    for (const n of [1, 2, 3]) await b.bridge.handleMessage(makeMsg({ conversation: conv(`B${n}`), text: `b${n}`, eventId: `b${n}` }));
    assert.deepEqual(a.started, ['a1', 'a2']);
    assert.equal(await held(prefix), 2);
    assert.equal(a.bridge.stats().queued, 1, 'a3 waits for a shared slot though A has a local one free');
    await waitFor(() => statusesIn(a.surface, 'A3').includes('queued: position 1'), 'a3 shows queued');
    await waitFor(() => statusesIn(b.surface, 'B1').some((s) => s.startsWith('queued')), 'b1 shows queued');
    // Free slots one by one: whoever takes one, the cap holds, and each bridge keeps its order.
    const calls = () => [...a.runner.calls, ...b.runner.calls];
    for (let finished = 1; finished <= 6; finished++) {
      const startedBefore = calls().length;
      calls().find((c) => !c.ended)!.finish({ reply: 'ok' });
      if (finished <= 4) await waitFor(() => calls().length === startedBefore + 1, 'the freed slot taken');
    }
    await waitFor(() => a.bridge.stats().turnsByOutcome.success === 3 && b.bridge.stats().turnsByOutcome.success === 3, 'all six answered');
    assert.equal(together.peak, 2, 'never more than the shared cap across both bridges');
    assert.deepEqual(a.started, ['a1', 'a2', 'a3']);
    assert.deepEqual(b.started, ['b1', 'b2', 'b3']);
    await settled(async () => sa.held === 0 && sb.held === 0 && (await held(prefix)) === 0, 'every slot back in Redis');
    assert.match(await a.bridge.metrics.render(), /turnbridge_shared_slots_held 0\n[\s\S]*turnbridge_shared_slots_shared 1/);
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
  });

  it('a slot goes back on error, Stop (running and waiting) and shutdown', async () => {
    const prefix = `c${++prefixes}`;
    const together = { active: 0, peak: 0 };
    const shared = slots(1, { prefix });
    const a = replica(shared, together);
    await a.bridge.handleMessage(makeMsg({ conversation: conv('E1'), text: 'e1', eventId: 'e1' }));
    await a.bridge.handleMessage(makeMsg({ conversation: conv('E2'), text: 'e2', eventId: 'e2' }));
    await a.bridge.handleMessage(makeMsg({ conversation: conv('E3'), text: 'e3', eventId: 'e3' }));
    const first = await a.runner.started(1);
    assert.equal(await held(prefix), 1);
    // Stop a waiting turn: it never held a slot, and it leaves none behind.
    const e3Stop = a.surface.messagesIn(conv('E3'))[0]!.content.stopActionId!;
    await a.bridge.handleAction(click('stop', e3Stop, ANA));
    // The agent fails: its slot goes to e2.
    first.finish({ exitCode: 1, error: 'boom' });
    const second = await a.runner.started(2);
    assert.equal(second.turn.message, 'e2');
    assert.equal(shared.held, 1);
    // Stop while running.
    const e2Stop = a.surface.messagesIn(conv('E2'))[0]!.content.stopActionId!;
    await a.bridge.handleAction(click('stop', e2Stop, ANA));
    await waitFor(() => a.bridge.stats().turnsByOutcome.stopped === 2, 'e2 and e3 stopped');
    await waitFor(() => shared.held === 0, 'the slot back after Stop');
    // The release to Redis runs after the local count drops (it is not awaited by the turn).
    await heldBecomes(prefix, 0, 'the slot back in Redis after Stop');
    // Shutdown while one runs.
    await a.bridge.handleMessage(makeMsg({ conversation: conv('E4'), text: 'e4', eventId: 'e4' }));
    await a.runner.started(3);
    assert.equal(await held(prefix), 1);
    await a.bridge.shutdown(1000);
    await shared.close();
    assert.equal(await held(prefix), 0, 'shutdown gave it back');
    assert.equal(a.runner.calls.length, 3, 'the stopped waiting turn never ran');
  });

  it('a turn waiting on a person gives its shared slot away and waits for one to resume', async () => {
    const prefix = `c${++prefixes}`;
    const together = { active: 0, peak: 0 };
    const a = replica(slots(1, { prefix }), together, { permission: true });
    const b = replica(slots(1, { prefix }), together);
    await a.bridge.handleMessage(makeMsg({ conversation: conv('P1'), text: 'deploy', eventId: 'p1' }));
    const call = await a.runner.started(1);
    await b.bridge.handleMessage(makeMsg({ conversation: conv('P2'), text: 'hello', eventId: 'p2' }));
    const request: PermissionRequest = { requestId: 'r1', toolName: 'Bash', input: { command: 'make deploy' } };
    let answered = false;
    const decision = call.handlers.onPermissionRequest!(request, { signal: new AbortController().signal }).then((d) => ((answered = true), d));
    const other = await b.runner.started(1);
    assert.equal(await held(prefix), 1, 'the parked turn holds no slot; the other bridge\'s turn holds the one');
    await a.bridge.handleAction({ platform: 'test', action: 'allow', id: a.surface.prompts()[0]!.view.promptId, user: ANA, notifyPrivately: async () => {} });
    await waitFor(() => a.surface.prompts()[0]!.history.length > 1, 'the prompt decided');
    assert.equal(answered, false, 'decided, but the one shared slot is on the other bridge');
    other.finish({ reply: 'ok' });
    assert.deepEqual(await decision, { behavior: 'allow' });
    call.finish({ reply: 'ok' });
    await waitFor(() => a.bridge.stats().turnsByOutcome.success === 1, 'the parked turn done');
    await a.bridge.shutdown(1000);
    await b.bridge.shutdown(1000);
    assert.equal(await held(prefix), 0);
  });

  it('a holder killed -9 loses its slots when their lock timeout lapses (the cap heals)', async (t) => {
    const prefix = `c${++prefixes}`;
    const holder = fileURLToPath(new URL('../../fixtures/shared-slot-holder.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', holder, server.url, prefix, '2', '400'], { cwd: fileURLToPath(new URL('../../../', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] });
    // A failed assertion before the kill below must not leave the holder (and this test) running.
    t.after(() => child.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.on('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    child.removeAllListeners('exit');
    assert.equal(await held(prefix), 2);
    const mine = slots(2, { prefix, lockTimeoutMs: 400 });
    const got: SharedPermit[] = [];
    const take = () => {
      for (let p = mine.take(); p; p = got.length < 2 ? mine.take() : undefined) got.push(p);
    };
    mine.onAvailable(take);
    take();
    assert.equal(got.length, 0, 'the holder, alive, keeps both slots');
    child.kill('SIGKILL');
    await waitFor(() => got.length === 2, 'both slots free after the lock timeout', 5000);
    assert.ok(got.every((p) => p.kind === 'shared'));
    assert.equal(mine.held, 2);
    for (const p of got) mine.release(p);
    await waitFor(() => mine.held === 0, 'released');
  });

  it('Redis away: the local cap, one warning and state degraded; shared again when Redis is back', async () => {
    const own = await startRedisServer();
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const s = slots(1, { url: own.url, prefix: 'down', logger, lockTimeoutMs: 300 });
    let available = 0;
    s.onAvailable(() => available++);
    let running: SharedPermit | undefined;
    s.onAvailable(() => (running ??= s.take()));
    assert.equal(s.take(), undefined);
    await waitFor(() => available === 1 && running !== undefined, 'the first slot');
    assert.equal(running!.kind, 'shared');
    assert.equal(s.held, 1);
    // Redis goes while a turn holds a slot: its refresh fails (every 100 ms here) without ending the process.
    own.stop();
    // Nothing is being acquired now: only the failing refresh can say degraded.
    await waitFor(() => s.state === 'degraded', 'degraded by the failing refresh', 8000);
    assert.equal(s.take()?.kind, 'local', 'while degraded every take answers at once');
    assert.equal(s.take()?.kind, 'local');
    const warnings = lines.filter((l) => l.level === 40 && /shared cap on running turns is off/.test(String(l.msg)));
    assert.equal(warnings.length, 1, 'said once');
    const back = await startRedisServer(own.port);
    await waitFor(() => s.state === 'shared', 'shared again', 8000);
    assert.equal(s.take(), undefined, 'counted in Redis again');
    s.release(running!);
    await s.close();
    back.stop();
  });
});
