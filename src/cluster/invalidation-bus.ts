import type { RedisLink } from '../storage/redis-link.js';

/**
 * Cache invalidation over Redis pub/sub, on top of the change-counter poll
 * (which stays: the CLI and hand edits never touch Redis). Whichever instance
 * first sees the counter move publishes; every other instance polls the counter
 * at once instead of at its next tick. After Redis returns, ioredis
 * resubscribes by itself and each instance polls once, catching up on anything
 * published while it was away.
 */
export function startInvalidationBus(link: RedisLink, channel: string, pollNow: () => Promise<void>, onError: (error: unknown) => void): { publish(): void; close(): Promise<void> } {
  link.subscriber.on('message', (received: string) => {
    if (received === channel) void pollNow();
  });
  // Commands are never queued while disconnected, so subscribe whenever the connection is (again) ready;
  // subscribing twice is harmless. Then poll once, for anything published while away.
  const subscribe = () => {
    link.subscriber.subscribe(channel).catch(onError);
    void pollNow();
  };
  link.subscriber.on('ready', subscribe);
  if (link.subscriber.status === 'ready') subscribe();
  return {
    publish() {
      if (!link.isUp()) return;
      link.client.publish(channel, 'changed').catch((error: unknown) => link.reportFailure(error));
    },
    async close() {
      await link.subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}
