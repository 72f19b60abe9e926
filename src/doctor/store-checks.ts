/**
 * Store: the embedded store's directory can be created and written, or Redis answers a write
 * and a read of a probe key (through the same connections the bridge opens, redis/).
 */
import type { BridgeConfig } from '../config/types.js';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { silentLogger } from '../log.js';
import { connectRedis, redactedUrl } from '../redis/index.js';
import { fileModeChecks } from './file-mode-checks.js';
import { redisTransportChecks } from './redis-transport-checks.js';
import { fail, pass, type CheckResult } from '../check-result.js';

const S = 'Store';

export async function storeChecks(config: BridgeConfig): Promise<CheckResult[]> {
  const checks = [config.redisUrl ? await redisCheck(config.redisUrl) : embeddedCheck(config.dataDir), ...fileModeChecks(config)];
  if (config.redisUrl) checks.push(...redisTransportChecks(config.redisUrl, redactedUrl(config.redisUrl)));
  return checks;
}

function embeddedCheck(dir: string): CheckResult {
  const notWritable = (why: string) => fail(S, `embedded store: ${dir} is not writable (${why})`,
    'set TURNBRIDGE_DATA_DIR (or data_dir in turnbridge.yaml) to a directory the bridge user may write, or set REDIS_URL');
  if (!existsSync(dir)) {
    // Not created here (doctor changes nothing): the nearest existing ancestor must be a writable directory.
    let parent = dirname(dir);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    try {
      if (!statSync(parent).isDirectory()) return notWritable(`${parent} is a file`);
      accessSync(parent, constants.W_OK);
    } catch (e) {
      return notWritable((e as NodeJS.ErrnoException).code ?? (e as Error).message);
    }
    return pass(S, `embedded store: ${dir} will be created on start (${parent} is writable)`);
  }
  const probe = join(dir, `.doctor-${randomUUID()}`);
  try {
    if (!statSync(dir).isDirectory()) return notWritable('it is a file');
    writeFileSync(probe, 'ok');
    rmSync(probe, { force: true });
    return pass(S, `embedded store: ${dir} is writable`);
  } catch (e) {
    return notWritable((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
}

async function redisCheck(url: string, timeoutMs = 3000): Promise<CheckResult> {
  const shown = redactedUrl(url);
  // One attempt, no reconnecting: a refused connection fails the check at once.
  const redis = connectRedis(url, { logger: silentLogger, connectTimeoutMs: timeoutMs, reconnect: false });
  const failed = new Promise<never>((_, reject) => redis.onHealth((h, err) => h === 'degraded' && reject(err ?? new Error('the connection closed'))));
  failed.catch(() => {});
  const key = `turnbridge:doctor:probe-${randomUUID()}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = (async () => {
      await redis.commands.set(key, 'ok', 'PX', 10_000);
      const back = await redis.commands.get(key);
      await redis.commands.del(key);
      if (back !== 'ok') throw new Error('the probe key read back wrong');
    })();
    work.catch(() => {});
    await Promise.race([work, failed, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); })]);
    return pass(S, `Redis at ${shown} answers (write, read, delete)`);
  } catch (e) {
    return fail(S, `Redis at ${shown} is not reachable (${(e as Error)?.message ?? String(e)})`,
      'start Redis or fix REDIS_URL (redis://host:port); unset it to use the embedded store');
  } finally {
    clearTimeout(timer);
    await redis.close();
  }
}
