/**
 * The configuration `run` and `chat` go by: the one `start` and the doctor read (turnbridge.yaml
 * in the working directory or TURNBRIDGE_CONFIG, the environment with ./.env under it, the *_FILE
 * secrets), so a setting such as agent.sandbox means the same for every command, and a mistake in
 * it is the same error everywhere.
 */
import type { BridgeConfig } from '../config/types.js';
import type { CliIo } from './io.js';

export async function commandConfig(io: CliIo): Promise<BridgeConfig> {
  const [{ loadConfig }, { bridgeEnv }] = await Promise.all([import('../config/load-config.js'), import('../config/bridge-env.js')]);
  return loadConfig({ env: bridgeEnv(io.env) });
}
