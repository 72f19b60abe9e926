/** Shared by the bridge tests: config, messages, a controllable fake runner, fixture-agent profiles. */
import type { Conversation, UserRef } from '../../../src/chat.js';
import type { BridgeConfig } from '../../../src/config/types.js';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { ActionEvent, InboundMessage } from '../../../src/bridge/types.js';
import { createMemoryStore, openState, type State, type StateStore } from '../../../src/state/index.js';
import { silentLogger } from '../../../src/log.js';
import type { Profile } from '../../../src/profile/index.js';
import type { RunHandlers, RunOptions, RunResult, TurnInput } from '../../../src/runner/index.js';
import { openSecurity } from '../../fixtures/config-defaults.js';
import { TEST_BUS_KEY } from '../../fixtures/bus-key.js';

export const AGENTS = fileURLToPath(new URL('../../fixtures/bridge-agents/', import.meta.url));

const dataDirs: string[] = [];
process.on('exit', () => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh, empty data directory (removed when the test process exits). */
export function freshDataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tb-bridge-'));
  dataDirs.push(d);
  return d;
}

export function makeConfig(over: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    ...openSecurity(), defaultProfile: '/profiles/default.yaml',
    routes: [],
    approvers: [],
    queueDepth: 5,
    maxConcurrent: 4,
    permissionTimeoutSecs: 600,
    dataDir: over.dataDir ?? freshDataDir(),
    host: '127.0.0.1',
    port: 0,
    shutdownGraceSecs: 5,
    logLevel: 'silent',
    platforms: {},
    busKey: TEST_BUS_KEY,
    ...over,
  };
}

export function makeProfile(over: Partial<Profile> = {}): Profile {
  return { dir: '', command: 'fake', args: [], env: {}, timeoutSecs: 60, killGraceSecs: 1, streaming: true, permission: false, ...over };
}

/** A profile running one of test/fixtures/bridge-agents/*.mjs as a real process. */
export function agentProfile(script: string, over: Partial<Profile> = {}): Profile {
  return makeProfile({ command: process.execPath, args: [join(AGENTS, script)], dir: AGENTS, timeoutSecs: 30, ...over });
}

export const ANA: UserRef = { id: 'U_ANA', name: 'ana' };
export const BOB: UserRef = { id: 'U_BOB', name: 'bob' };
export const BOSS: UserRef = { id: 'U_BOSS', name: 'boss' };

let seq = 0;
export function conv(channel = 'C1', thread = ''): Conversation {
  return { space: 'T1', channel, thread };
}

export function makeMsg(over: Partial<InboundMessage> = {}): InboundMessage {
  seq++;
  return {
    platform: 'test',
    conversation: conv(),
    user: ANA,
    text: `hello ${seq}`,
    attachments: [],
    eventId: `ev-${seq}`,
    receivedAt: 0,
    ...over,
  };
}

export interface Click extends ActionEvent {
  readonly told: string[];
}

export function click(action: ActionEvent['action'], id: string, user: UserRef): Click {
  const told: string[] = [];
  return {
    platform: 'test',
    action,
    id,
    user,
    told,
    async notifyPrivately(text) {
      told.push(text);
    },
  };
}

/** A throwaway in-memory state. */
export function memoryState(): State {
  return openState(createMemoryStore(), { logger: silentLogger });
}

/** A throwaway in-memory backend for the bridge's state (createBridge's `store`). */
export function memoryStore(): StateStore {
  return createMemoryStore();
}

export function result(over: Partial<RunResult> = {}): RunResult {
  return { reply: '', sessionId: '', error: null, exitCode: 0, timedOut: false, cancelled: false, partials: [], notices: [], durationMs: 1, ...over };
}

/** One call of the fake runner; the test decides when and how it ends. */
export interface FakeCall {
  profile: Profile;
  turn: TurnInput;
  handlers: RunHandlers;
  options: RunOptions;
  finish(r?: Partial<RunResult>): void;
  readonly ended: boolean;
}

/**
 * A runTurn whose calls wait for the test to finish them. An aborted signal ends the call as
 * cancelled (like the real runner).
 */
export function fakeRunner() {
  const calls: FakeCall[] = [];
  const waiters: Array<() => void> = [];
  let active = 0;
  let peak = 0;
  const runTurn = (profile: Profile, turn: TurnInput, handlers: RunHandlers = {}, options: RunOptions = {}): Promise<RunResult> =>
    new Promise<RunResult>((resolve) => {
      active++;
      peak = Math.max(peak, active);
      let ended = false;
      const call: FakeCall = {
        profile,
        turn,
        handlers,
        options,
        finish(r = {}) {
          if (ended) return;
          ended = true;
          active--;
          resolve(result(r));
        },
        get ended() {
          return ended;
        },
      };
      options.signal?.addEventListener('abort', () => call.finish({ cancelled: true, exitCode: 143, error: 'cancelled' }), { once: true });
      calls.push(call);
      for (const w of waiters.splice(0)) w();
    });
  return {
    runTurn,
    calls,
    get active() {
      return active;
    },
    get peak() {
      return peak;
    },
    /** Wait until at least n calls have started. */
    async started(n: number): Promise<FakeCall> {
      await waitFor(() => calls.length >= n, `${n} runner calls (have ${calls.length})`);
      return calls[n - 1]!;
    },
  };
}

/** Poll a condition (a safety bound only; tests never assert on elapsed time). */
export async function waitFor(cond: () => boolean, what = 'condition', limitMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
