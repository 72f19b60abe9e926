import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Profile } from '../../../src/profile/index.js';

export const AGENTS = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/agents');

export type Step = Record<string, unknown>;

/** A profile running test/fixtures/agents/<script> with node, short timeouts for tests. */
export function agentProfile(script: string, extra: Partial<Profile> = {}): Profile {
  return {
    dir: AGENTS,
    command: process.execPath,
    args: [join(AGENTS, script)],
    env: {},
    timeoutSecs: 60,
    killGraceSecs: 1,
    streaming: true,
    permission: false,
    ...extra,
  };
}

/** The scripted agent playing `steps` (see scripted.mjs). */
export function scripted(steps: Step[], extra: Partial<Profile> = {}): Profile {
  const base = agentProfile('scripted.mjs', extra);
  return { ...base, env: { AGENT_STEPS: JSON.stringify(steps), ...(extra.env ?? {}) } };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until fn() is true (bounded by count, not by a wall-clock assertion). */
export async function eventually(fn: () => boolean, tries = 100, everyMs = 20): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (fn()) return true;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return fn();
}
