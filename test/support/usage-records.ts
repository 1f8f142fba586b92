import assert from 'node:assert/strict';
import type { UsageRecordRow } from '../../src/storage/schema.js';
import type { Gateway } from './gateway-harness.js';

/** The usage record of request `id`, once the gateway's writer has flushed it (it writes off the request path). */
export async function usageRecordOf(gateway: Pick<Gateway, 'app'>, id: string): Promise<UsageRecordRow> {
  for (let tries = 0; tries < 200; tries += 1) {
    await gateway.app.usage.flush();
    const found = (await gateway.app.repositories.usage.list()).find((row) => row.id === id);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return assert.fail(`no usage record for ${id}`);
}
