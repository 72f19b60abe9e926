/**
 * `turnbridge doctor` for Discord, over REST only (no gateway connection, so nothing can close
 * 4014): the token (GET /users/@me), the Message Content grant (GET /applications/@me flags),
 * the invite URL with exactly the permissions needed, and the servers the bot is in with its
 * permissions there (GET /users/@me/guilds).
 */
import { REST, Routes } from 'discord.js';
import { fail, pass, type CheckResult } from '../../check-result.js';
import type { DiscordConfig } from './config.js';
import { ENABLE_MESSAGE_CONTENT, messageContentGranted } from './message-content.js';
import { inviteUrl, missingPermissions } from './permissions.js';

const S = 'Discord';

/** Discord channel ids that routes name for Discord (a route without a platform counts when the id is a snowflake). */
function discordChannelsOf(cfg: DiscordConfig): string[] {
  const ids = new Set<string>();
  for (const r of cfg.routes) {
    if (r.platform !== undefined && r.platform !== 'discord') continue;
    for (const id of [r.channel, ...(r.allowChannels ?? [])]) if (id && /^\d{17,20}$/.test(id)) ids.add(id);
  }
  return [...ids];
}

export async function discordDoctorChecks(cfg: DiscordConfig): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  const rest = new REST({ version: '10', retries: 0, timeout: 10_000, ...(cfg.apiUrl ? { api: cfg.apiUrl } : {}) }).setToken(cfg.token);
  let user: { id: string; username: string };
  try {
    user = (await rest.get(Routes.user())) as { id: string; username: string };
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status === 401) {
      out.push(fail(S, 'Discord rejected DISCORD_TOKEN (401)', 'copy the token again: Developer Portal > your application > Bot > Reset Token, into DISCORD_TOKEN'));
    } else {
      out.push(fail(S, `cannot reach Discord (${(e as Error)?.message ?? String(e)})`, cfg.apiUrl ? `check DISCORD_API_URL (${cfg.apiUrl})` : 'check the network or proxy to discord.com'));
    }
    return out;
  }
  out.push(pass(S, `bot token valid: ${user.username} (${user.id})`));

  let appId = user.id;
  try {
    const app = (await rest.get(Routes.currentApplication())) as { id: string; flags?: number };
    appId = app.id;
    const granted = messageContentGranted(app.flags ?? 0);
    if (cfg.readUnmentioned === false) {
      out.push(pass(S, `Message Content intent ${granted ? 'granted' : 'off'}; not used (discord.read_unmentioned: false): follow-ups in threads need a mention`));
    } else if (granted) {
      out.push(pass(S, "Message Content intent granted: follow-ups in the bot's threads are answered without a mention"));
    } else {
      out.push(fail(S, "Message Content intent off: follow-ups in the bot's threads are ignored unless they mention the bot",
        `${ENABLE_MESSAGE_CONTENT}${cfg.readUnmentioned === true ? ' (with read_unmentioned: true Discord refuses the connection, close 4014, until then)' : ''}`));
    }
  } catch (e) {
    out.push(fail(S, `cannot read the application (${(e as Error)?.message ?? String(e)})`, 'check that DISCORD_TOKEN is a bot token of this application'));
  }

  const invite = inviteUrl(appId);
  let guilds: Array<{ id: string; name: string; permissions?: string }> = [];
  try {
    guilds = (await rest.get(Routes.userGuilds())) as typeof guilds;
  } catch (e) {
    out.push(fail(S, `cannot list the bot's servers (${(e as Error)?.message ?? String(e)})`, `invite it: ${invite}`));
    return out;
  }
  if (guilds.length === 0) {
    out.push(fail(S, 'the bot is in no server yet (DMs need a shared server too)', `open the invite URL and pick your server: ${invite}`));
    return out;
  }
  out.push(pass(S, `invite URL (exactly the permissions needed): ${invite}`));
  for (const g of guilds) {
    const missing = missingPermissions(g.permissions ?? '0');
    if (missing.length === 0) out.push(pass(S, `in server ${g.name} (${g.id}) with the permissions it needs`));
    else {
      out.push(fail(S, `in server ${g.name} (${g.id}) without ${missing.join(', ')}`,
        `re-invite with ${invite} or give the bot's role those permissions (Server Settings > Roles)`));
    }
  }
  for (const id of discordChannelsOf(cfg)) {
    try {
      const ch = (await rest.get(Routes.channel(id))) as { name?: string };
      out.push(pass(S, `bot can see channel ${ch.name ? `#${ch.name} ` : ''}(${id}) named in routes`));
    } catch (e) {
      const status = (e as { status?: number }).status;
      out.push(fail(S, `bot cannot see channel ${id} named in routes (${status ?? (e as Error)?.message})`,
        'check the channel id (Developer Mode > right-click the channel > Copy Channel ID) and give the bot View Channel there'));
    }
  }
  return out;
}
