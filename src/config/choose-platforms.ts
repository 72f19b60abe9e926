import type { BridgeConfig } from './types.js';

/** Which platforms to start: those whose token is set; the local page when none is, or when asked (TURNBRIDGE_LOCAL, local.enabled). */
export function choosePlatforms(config: Pick<BridgeConfig, 'platforms'>): { slack: boolean; discord: boolean; local: boolean } {
  const slack = config.platforms.slack !== undefined;
  const discord = config.platforms.discord !== undefined;
  return { slack, discord, local: config.platforms.local?.enabled === true || (!slack && !discord) };
}
