import { parentPort, workerData } from 'node:worker_threads';
import { createApiKeysRepository } from './api-keys-repository.js';
import { openStorage } from './database.js';
import type { UsageWriteReply, UsageWriteRequest } from './usage-writer-messages.js';
import { createUsageRepository } from './usage-repository.js';
import { createUsageRetentionRepository } from './usage-retention-repository.js';

/**
 * The usage writer thread (started by usage-writer-thread.ts): its own connection to the database (a SQLite file,
 * opened as the main thread opens it, WAL and busy timeout; or a small Postgres pool), on a schema the main thread
 * has already migrated: the INSERTs, the rollups they add and the expiry deletes run here, never on the event loop.
 * Requests are handled one at a time, in the order they came.
 */
const port = parentPort;
if (port === null) throw new Error('usage-writer-worker runs as a worker thread');
// One batch at a time: on Postgres two connections are plenty (one spare while a broken one is replaced).
const storage = openStorage((workerData as { databaseUrl: string }).databaseUrl, { maxConnections: 2 });
const usage = createUsageRepository(storage.db);
const apiKeys = createApiKeysRepository(storage.db, Date.now);
const retention = createUsageRetentionRepository(storage.db, storage.dialect);

async function handle(request: UsageWriteRequest): Promise<UsageWriteReply> {
  try {
    if ('values' in request) await usage.insertBatch(request.values, request.samples, request.logs);
    else if ('lastUsed' in request) await apiKeys.touchLastUsed(new Map(request.lastUsed));
    else if ('expire' in request) return { id: request.id, expired: await retention.deleteExpiredBatch(request.expire, request.batch) };
    else {
      await storage.close();
      port?.close();
    }
    return { id: request.id };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
}

let chain = Promise.resolve();
port.on('message', (request: UsageWriteRequest) => {
  chain = chain.then(async () => {
    const reply = await handle(request);
    if (!('close' in request)) port.postMessage(reply);
  });
});
