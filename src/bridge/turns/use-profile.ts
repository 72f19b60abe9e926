/**
 * `use <profile>`: which profile a conversation's next turns use (issue 26). A thread may switch
 * to its route's own profile and to the profiles its route offers (`profiles:`; where the route
 * names none, the bridge-wide `profiles:`), each named by its `name:` (else its folder, else its
 * file). The choice is kept in the state (state/conversations.ts), across `new`; every message of
 * the conversation is then routed to it with the restrictions of the routes naming it folded in
 * (access/routing.ts routeWithProfile): a switch never loosens what holds there. Only the
 * conversation's author or an admin switches it, as only they reset it.
 *
 * A switch between profiles that start the same agent (profile/same-agent.ts: claude-code and
 * claude-code-plan) keeps the session; any other starts a new one, and the answer says so. A plan
 * approved in a thread that switched to a plan profile moves it back to the profile it used
 * before, when that starts the same agent, so its next messages are not planned again.
 */
import type { Routed } from '../../config/route-rules.js';
import { basename, dirname } from 'node:path';
import { sameAgent, type Profile } from '../../profile/index.js';
import type { ProfileChoice } from '../../state/index.js';
import { actorOf, checkAccess, identityOf, routeMessage, routeWithProfile } from '../access/index.js';
import type { InboundMessage } from '../types.js';
import type { BridgeContext } from './context.js';

type Where = Pick<InboundMessage, 'platform' | 'conversation' | 'direct'>;

/** The name `use` knows a profile by: its `name:`, else its folder (profiles/x/profile.yaml), else its file. */
export function profileName(path: string, profile?: Pick<Profile, 'name'>): string {
  if (profile?.name) return profile.name;
  const file = basename(path).replace(/\.ya?ml$/i, '');
  return file === 'profile' ? basename(dirname(path)) : file;
}

/** The profiles a conversation here may use: its route's own first, then those offered. */
function offeredAt(ctx: BridgeContext, base: Routed): string[] {
  return [...new Set([base.profilePath, ...(base.route?.profiles ?? ctx.config.profiles)])];
}

/** Where a message goes: its route, or the profile its conversation switched to (when still offered there). */
export async function routeFor(ctx: BridgeContext, msg: Where, key: string): Promise<Routed> {
  const base = routeMessage(ctx.config, msg);
  const choice = await ctx.state.conversations.profile(key);
  if (!choice || choice.path === base.profilePath) return base;
  if (!offeredAt(ctx, base).includes(choice.path)) {
    ctx.logger.warn({ conversation: key, profile: choice.path }, 'the profile this conversation switched to is no longer offered here (profiles: in turnbridge.yaml); using the route\'s');
    return base;
  }
  return routeWithProfile(ctx.config, msg, choice.path);
}

/** A profile offered here, loaded (undefined when its file cannot be loaded: the log says why). */
async function load(ctx: BridgeContext, path: string): Promise<Profile | undefined> {
  return ctx.profile(path).catch((err: unknown) => {
    ctx.logger.warn({ err, profile: path }, 'an offered profile could not be loaded');
    return undefined;
  });
}

/** Whether the profile at `path` (a stored session's) starts the same agent as `profile`: its session carries over. */
export async function sameAgentAs(ctx: BridgeContext, path: string, profile: Profile): Promise<boolean> {
  const other = await load(ctx, path);
  return other !== undefined && sameAgent(other, profile);
}

/* The command. */

export interface UseCommand {
  /** The profile named; absent: list them. */
  name?: string;
  /** Written `/use`: an unknown name is an error, never a message for the agent. */
  slash: boolean;
}

/**
 * `use`, `use <name>`, `/use <name>` (the whole message). A bare `use <word>` that names no offered
 * profile is a message for the agent ("use pandas"): the caller asks `names` first.
 */
export function parseUseCommand(text: string, attachmentCount = 0): UseCommand | undefined {
  if (attachmentCount > 0) return undefined;
  const m = /^(\/?)use(?:\s+(\S+))?$/i.exec(text.trim());
  if (!m) return undefined;
  return { slash: m[1] === '/', ...(m[2] ? { name: m[2] } : {}) };
}

interface Offered {
  path: string;
  name: string;
  profile?: Profile;
}

async function offered(ctx: BridgeContext, msg: Where): Promise<{ base: Routed; list: Offered[] }> {
  const base = routeMessage(ctx.config, msg);
  const list = await Promise.all(offeredAt(ctx, base).map(async (path) => {
    const profile = await load(ctx, path);
    return { path, name: profileName(path, profile), ...(profile ? { profile } : {}) };
  }));
  return { base, list };
}

const pick = (list: Offered[], name: string): Offered | undefined =>
  name.toLowerCase() === 'default' ? list[0] : list.find((o) => o.name.toLowerCase() === name.toLowerCase());

/** Whether `use <name>` is a command here: it names an offered profile (or `default`), or was written `/use`. */
export async function isUseCommand(ctx: BridgeContext, cmd: UseCommand, msg: Where): Promise<boolean> {
  if (cmd.slash || cmd.name === undefined) return true;
  return pick((await offered(ctx, msg)).list, cmd.name) !== undefined;
}

type Say = (text: string, tone: 'info' | 'warning' | 'success') => Promise<void>;

/** `use` alone lists; `use <name>` switches (the author or an admin). */
export async function useProfile(ctx: BridgeContext, cmd: UseCommand, msg: InboundMessage, key: string, admin: boolean, say: Say): Promise<void> {
  const { base, list } = await offered(ctx, msg);
  const choice = await ctx.state.conversations.profile(key);
  const currentPath = (await routeFor(ctx, msg, key)).profilePath;
  const current = list.find((o) => o.path === currentPath) ?? { path: currentPath, name: profileName(currentPath) };
  const describe = (o: Offered) => `\`${o.name}\`${o.profile?.description ? ` — ${o.profile.description}` : o.profile ? '' : ' (cannot be loaded: see the bridge log)'}`;
  const others = list.filter((o) => o.path !== currentPath);
  if (cmd.name === undefined) {
    if (others.length === 0) {
      await say(`This thread uses ${describe(current)}. No other profile is offered here (a route's \`profiles:\` in turnbridge.yaml lists them).`, 'info');
      return;
    }
    const lines = others.map((o) => `• ${describe(o)}${current.profile && o.profile && !sameAgent(current.profile, o.profile) ? ' (another agent: a new session)' : ''}`);
    await say(`This thread uses ${describe(current)}. \`use <name>\` switches its next messages to:\n${lines.join('\n')}${base.profilePath !== currentPath ? `\n\`use default\` goes back to \`${list[0]!.name}\`.` : ''}`, 'info');
    return;
  }
  const target = pick(list, cmd.name);
  if (!target) {
    await say(`No profile named \`${cmd.name}\` here. Offered: ${list.map((o) => `\`${o.name}\``).join(', ')}.`, 'warning');
    return;
  }
  const record = await ctx.state.sessions.get(key);
  const author = record?.author ?? (await ctx.state.conversations.author(key));
  const me = identityOf(actorOf(msg));
  if (author && author !== me && !admin) {
    await say(`Only the person who started this conversation (${author}) or an admin (TURNBRIDGE_ADMINS / access.admins) can switch its profile.`, 'warning');
    return;
  }
  if (target.path === currentPath) {
    await say(`This thread already uses \`${target.name}\`.`, 'info');
    return;
  }
  // A switch never lets in anyone the routes naming that profile would not (it could lock its author out).
  const there = await checkAccess(ctx.config.access, ctx.state.grants, msg, routeWithProfile(ctx.config, msg, target.path).route);
  if (!there.ok) {
    await say(`You could not use \`${target.name}\` here: ${there.text}`, 'warning');
    return;
  }
  if (!target.profile) {
    await say(`\`${target.name}\` cannot be loaded (the bridge log says why); this thread stays on \`${current.name}\`.`, 'warning');
    return;
  }
  const next: ProfileChoice | undefined = target.path === base.profilePath ? undefined : { path: target.path, previous: currentPath === base.profilePath ? undefined : currentPath, by: me, at: ctx.now() };
  if (next && next.previous === undefined) delete next.previous;
  if (!(await ctx.state.conversations.useProfile(key, next))) {
    await say(`Could not save the switch (store failure; the bridge log has the details); this thread stays on \`${current.name}\`.`, 'warning');
    return;
  }
  ctx.logger.info({ conversation: key, from: currentPath, to: target.path, by: me }, 'conversation switched profile');
  const kept = record && current.profile && sameAgent(current.profile, target.profile);
  const session = !record ? '' : kept ? ' The session carries over (the same agent).' : ` It runs another agent than \`${current.name}\`: the next message starts a new session.`;
  await say(`This thread now uses ${describe(target)}, from the next message.${session}`, 'success');
}

/**
 * A plan card in a turn that runs the profile its thread switched to: the profile the thread goes
 * back to once the plan is approved (what it used before, when that starts the same agent), and
 * the switch that makes it so.
 */
export async function afterPlan(ctx: BridgeContext, turn: { key: string; msg: Where; profilePath: string; profile: Profile }): Promise<{ name: string; choice: ProfileChoice | undefined } | undefined> {
  const choice = await ctx.state.conversations.profile(turn.key);
  if (!choice || choice.path !== turn.profilePath) return undefined;
  const base = routeMessage(ctx.config, turn.msg);
  const back = choice.previous ?? base.profilePath;
  const profile = await load(ctx, back);
  if (back === turn.profilePath || !profile || !sameAgent(profile, turn.profile)) return undefined;
  return { name: profileName(back, profile), choice: back === base.profilePath ? undefined : { path: back, by: choice.by, at: ctx.now() } };
}
