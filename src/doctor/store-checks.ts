/**
 * Store: the embedded store's directory can be created and written, or Redis answers a write
 * and a read of a probe key (through the same keyv adapter the bridge uses).
 */
import type { BridgeConfig } from '../config/types.js';
import { randomUUID } from 'node:crypto';
import { accessSync, constants, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { fileModeChecks } from './file-mode-checks.js';
import { redisTransportChecks } from './redis-transport-checks.js';
import { fail, pass, type CheckResult } from '../check-result.js';

const S = 'Store';

export async function storeChecks(config: BridgeConfig): Promise<CheckResult[]> {
  const checks = [config.redisUrl ? await redisCheck(config.redisUrl) : embeddedCheck(config.dataDir), ...fileModeChecks(config)];
  if (config.redisUrl) checks.push(...redisTransportChecks(config.redisUrl, safeUrl(config.redisUrl)));
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

/** The URL without its password, for the line people read. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '[redis url]';
  }
}

async function redisCheck(url: string, timeoutMs = 3000): Promise<CheckResult> {
  const store = new KeyvRedis(url, { throwOnConnectError: true, connectionTimeout: timeoutMs });
  const keyv = new Keyv({ store, namespace: 'turnbridge:doctor', useKeyPrefix: false });
  // A refused connection arrives as an 'error' event (the client keeps reconnecting): fail at once.
  let onError: (e: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => { onError = reject; });
  failed.catch(() => {});
  keyv.on('error', (e: unknown) => onError(e));
  store.on?.('error', (e: unknown) => onError(e));
  const key = `probe-${randomUUID()}`;
  let timer: NodeJS.Timeout | undefined;
  try {
    const work = (async () => {
      await keyv.set(key, 'ok', 10_000);
      const back = await keyv.get<string>(key);
      await keyv.delete(key);
      if (back !== 'ok') throw new Error('the probe key read back wrong');
    })();
    work.catch(() => {});
    await Promise.race([work, failed, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs); })]);
    return pass(S, `Redis at ${safeUrl(url)} answers (write, read, delete)`);
  } catch (e) {
    return fail(S, `Redis at ${safeUrl(url)} is not reachable (${(e as Error)?.message ?? String(e)})`,
      'start Redis or fix REDIS_URL (redis://host:port); unset it to use the embedded store');
  } finally {
    clearTimeout(timer);
    await keyv.disconnect().catch(() => {});
  }
}
