import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClientAbort } from '../../lib/client-abort.js';
import { UpstreamError } from '../contract.js';
import { createSimEmbeddingModel } from './sim-embedding-model.js';

const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));

describe('the simulator embedding model (offline, not a real model)', () => {
  const model = createSimEmbeddingModel({ timeScale: 0, timing: () => ({ ttftMs: 50, tokensPerSecond: 1000 }) }, 'embed-small');

  it('the same input always gives the same unit vector, another input another one; 256 values unless asked', async () => {
    const signal = new ClientAbort();
    const first = await model.embed({ input: ['alpha', 'beta', 'alpha'] }, { signal });
    const again = await model.embed({ input: ['alpha'] }, { signal });
    const [alpha, beta, alphaAgain] = first.embeddings;
    assert.equal(alpha?.length, 256);
    assert.deepEqual(alpha, alphaAgain);
    assert.deepEqual(alpha, again.embeddings[0]);
    assert.notDeepEqual(alpha, beta);
    for (const vector of first.embeddings) assert.ok(Math.abs(norm(vector) - 1) < 1e-6, `unit length, got ${norm(vector)}`);
    assert.ok((first.usage?.promptTokens ?? 0) >= 3, 'tokens counted');
  });

  it('gives the asked length, token arrays counted by their length', async () => {
    const result = await model.embed({ input: [[1, 2, 3, 4]], dimensions: 64 }, { signal: new ClientAbort() });
    assert.equal(result.embeddings[0]?.length, 64);
    assert.equal(result.usage?.promptTokens, 4);
  });

  it('a client that left ends the call as aborted', async () => {
    const slow = createSimEmbeddingModel({ timeScale: 1, timing: () => ({ ttftMs: 10_000, tokensPerSecond: 1000 }) }, 'embed-small');
    const signal = new ClientAbort();
    const call = slow.embed({ input: ['x'] }, { signal });
    signal.abort(new Error('gone'));
    await assert.rejects(call, (error: unknown) => error instanceof UpstreamError && error.kind === 'aborted');
  });
});
