/** A permission broker on a recording surface, with rules and an audit trail in memory (approvals and rule tests). */
import type { PromptCard, UserRef } from '../../../src/chat.js';
import type { Approvals } from '../../../src/config/types.js';
import { createPermissionBroker } from '../../../src/bridge/index.js';
import { createDelivery } from '../../../src/delivery/index.js';
import { createMemoryStore, openState } from '../../../src/state/index.js';
import { createMetrics } from '../../../src/bridge/metrics.js';
import type { ActionEvent, CardChoice, FormKind, PromptForm } from '../../../src/bridge/types.js';
import type { PermissionRequest } from '../../../src/protocol/types.js';
import { silentLogger } from '../../../src/log.js';
import { createRecordingSurface } from '../../fakes/recording-surface.js';
import { ANA, conv, waitFor } from './helpers.js';

export const bash = (command: string): PermissionRequest => ({ requestId: 'r', toolName: 'Bash', description: 'Run tests', input: { command } });

export function rig(opts: { groupMembers?: Record<string, string[]> } = {}) {
  let n = 0;
  let clock = 10_000;
  const metrics = createMetrics();
  const state = openState(createMemoryStore(), { logger: silentLogger, now: () => clock, audit: { metrics } });
  const { rules, audit } = state;
  const surface = createRecordingSurface();
  if (opts.groupMembers) {
    const groups = opts.groupMembers;
    Object.assign(surface, { groupMembers: async (g: string) => groups[g] ?? [] });
  }
  const broker = createPermissionBroker({ approvers: [], logger: silentLogger, idFactory: () => `p${++n}`, rules, audit, now: () => clock });
  const delivery = createDelivery(surface);
  const lines: string[] = [];
  const ask = (request: PermissionRequest, over: { groups?: string[]; thread?: string; author?: UserRef; workspace?: string; approvals?: Approvals; card?: PromptCard; users?: string[] } = {}) => broker.request({
    turnId: 't1', surface, post: (render) => delivery.prompt(conv('C1', over.thread ?? 'th1'), render),
    conversation: conv('C1', over.thread ?? 'th1'), author: over.author ?? ANA, request, signal: new AbortController().signal,
    timeoutMs: 60_000, log: silentLogger, approvers: { users: over.users ?? [], groups: over.groups ?? [], ...(over.approvals ? { approvals: over.approvals } : {}) }, onAutoAllowed: (l) => lines.push(l),
    ...(over.workspace ? { workspace: over.workspace } : {}),
    ...(over.card ? { card: over.card } : {}),
  });
  const act = (action: ActionEvent['action'], id: string, user = ANA, choice?: CardChoice) => {
    const told: string[] = [];
    const forms: PromptForm[] = [];
    const ev: ActionEvent = { platform: 'test', action, id, user, ...(choice ? { choice } : {}), notifyPrivately: async (t) => { told.push(t); }, openForm: async (f) => { forms.push(f); } };
    return { ev, told, forms, run: () => broker.handleAction(ev) };
  };
  const submit = (kind: FormKind, id: string, value: string, user = ANA, question?: number) =>
    broker.handleFormSubmit({ platform: 'test', kind, id, value, user, ...(question !== undefined ? { question } : {}), notifyPrivately: async () => {} });
  return { state, broker, surface, rules, audit, metrics, lines, ask, act, submit, tick: (ms: number) => (clock += ms), posted: (k: number) => waitFor(() => surface.prompts().length >= k, `${k} prompts`) };
}
