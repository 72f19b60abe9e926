import type { BridgeConfig } from './types.js';

function truthy(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

/** Which platforms this environment asks for (a token turns a platform on; local when none, or asked). */
export function choosePlatforms(env: NodeJS.ProcessEnv, config: BridgeConfig): { slack: boolean; discord: boolean; local: boolean } {
  const slack = Boolean(env.SLACK_BOT_TOKEN?.trim());
  const discord = Boolean(env.DISCORD_TOKEN?.trim());
  const localAsked = truthy(env.TURNBRIDGE_LOCAL) || config.platforms.local?.enabled === true;
  return { slack, discord, local: localAsked || (!slack && !discord) };
}
