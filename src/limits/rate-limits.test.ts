import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../lib/errors.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import { createMemoryWindowStore } from './memory-window-store.js';
import { createRateLimits, formatResetDuration } from './rate-limits.js';

const key = (limits: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  id: 'key_1',
  ownerId: 'usr_1',
  name: 'k',
  displayPrefix: 'mp_x',
  routerIds: undefined,
  rpmLimit: undefined,
  createdAt: 0,
  lastUsedAt: undefined,
  expiresAt: undefined,
  revokedAt: undefined,
  ...limits,
});
const router: RouterRecord = { id: 'rt_1', ownerId: 'usr_1', name: 'r', strategy: 'cost_optimized', models: ['sim:small'], settings: {}, createdAt: 0, updatedAt: 0 };

/** The 429 `run` throws. */
function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.status, 429);
    return error;
  }
  return assert.fail('expected a 429');
}

describe('rate limits: a 429 names one instant in retry-after and x-ratelimit-reset-*', () => {
  it('requests: the reset is when the next request is admitted, not when the window empties', () => {
    let now = 1_000_000;
    const limits = createRateLimits(createMemoryWindowStore(), { defaultRpm: 600 }, () => now, () => undefined);
    const limited = key({ rpmLimit: 3 });
    for (const at of [0, 20_000, 36_000]) {
      now = 1_000_000 + at;
      limits.admitRequest(limited);
    }
    const error = refusal(() => limits.admitRequest(limited));
    // The oldest request (at 0) leaves the 60 s window 24 s from now; the window only empties in 60 s.
    assert.equal(error.headers['retry-after'], '24');
    assert.equal(error.headers['x-ratelimit-reset-requests'], '24s');
    assert.equal(error.headers['x-ratelimit-remaining-requests'], '0');
    // An admitted request still reports when the window is back to its full limit.
    now += 24_000;
    const ticket = limits.admitRequest(limited);
    assert.ok(!(ticket instanceof Promise));
    assert.equal(ticket.headers['x-ratelimit-reset-requests'], formatResetDuration(60_000));
  });

  it('tokens: the refused unit gets the retry instant; minutes are written as OpenAI does', () => {
    let now = 5_000_000;
    const limits = createRateLimits(createMemoryWindowStore(), { defaultRpm: 600 }, () => now, () => undefined);
    const limited = key({ tpmLimit: 1000 });
    for (const at of [0, 10_000]) {
      now = 5_000_000 + at;
      const ticket = limits.admitRequest(limited);
      assert.ok(!(ticket instanceof Promise));
      limits.admitRouted(ticket, limited, router, 400);
    }
    now = 5_020_000;
    const third = limits.admitRequest(limited);
    assert.ok(!(third instanceof Promise));
    const error = refusal(() => limits.admitRouted(third, limited, router, 500));
    // 500 more fit once the first 400 leave (40 s from now); the window empties only in 50 s.
    assert.equal(error.headers['retry-after'], '40');
    assert.equal(error.headers['x-ratelimit-reset-tokens'], '40s');
    assert.equal(formatResetDuration(84_000), '1m24s');
  });
});
