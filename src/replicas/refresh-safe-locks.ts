/**
 * redis-semaphore 5.8 refreshes its locks from a timer and does not catch a Redis error there:
 * the rejection is unhandled and ends the process. These subclasses catch it. A refresh that
 * could not reach Redis keeps the lock as far as this replica knows (it lapses in Redis after
 * lockTimeout; the next refresh that answers then reports it lost) and tells the caller.
 * Used by the shared cap (shared-slots.ts) and the takeover claim (takeover.ts).
 */
import type { RedisConnections } from '../redis/index.js';
import { Mutex, Semaphore } from 'redis-semaphore';

type OnRefreshError = (err: unknown) => void;
type Redis = RedisConnections['commands'];

async function guarded(refresh: () => Promise<boolean>, onRefreshError: OnRefreshError): Promise<boolean> {
  try {
    return await refresh();
  } catch (err) {
    onRefreshError(err);
    return true;
  }
}

export class RefreshSafeSemaphore extends Semaphore {
  constructor(client: Redis, key: string, limit: number, options: ConstructorParameters<typeof Semaphore>[3], private readonly onRefreshError: OnRefreshError) {
    super(client, key, limit, options);
  }

  protected override _refresh(): Promise<boolean> {
    return guarded(() => super._refresh(), this.onRefreshError);
  }
}

export class RefreshSafeMutex extends Mutex {
  constructor(client: Redis, key: string, options: ConstructorParameters<typeof Mutex>[2], private readonly onRefreshError: OnRefreshError) {
    super(client, key, options);
  }

  protected override _refresh(): Promise<boolean> {
    return guarded(() => super._refresh(), this.onRefreshError);
  }
}
