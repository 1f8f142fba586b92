import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatRequest } from '../../providers/contract.js';
import { createModelCatalog } from '../../catalog/catalog.js';
import { FIXTURE_IDS, candidatesFor, fixtureModel, ids, strategyContext, userRequest } from '../../../test/support/routing-fixtures.js';
import { costStrategy } from './cost-strategy.js';

describe('cost_optimized', () => {
  it('puts the lowest expected cost first, with the cost as score and reason', () => {
    const ranked = costStrategy.rank(candidatesFor(FIXTURE_IDS), strategyContext());
    assert.deepEqual(ids(ranked), ['acme:tiny', 'acme:mid', 'green:mid', 'acme:big']);
    const first = ranked[0];
    assert.equal(first?.score, first?.candidate.expectedCostUsd);
    // 'Hello': 5 bytes → 2 tokens, plus 3 for the message and 3 to prime the answer.
    assert.match(first?.reason ?? '', /^expected \$0\.00010 \(8 prompt \+ 256 output tokens\)$/);
  });

  it('weighs prompt and output by what this request is expected to need', () => {
    // reader: cheap output, dear prompt; writer: the opposite.
    const reader = { ...fixtureModel('acme:mid'), id: 'x:reader', pricing: { inputPerMTok: 10, outputPerMTok: 0.1 } };
    const writer = { ...fixtureModel('acme:mid'), id: 'x:writer', pricing: { inputPerMTok: 0.1, outputPerMTok: 10 } };
    const catalog = createModelCatalog([reader, writer]);
    const order = (request: ChatRequest) => ids(costStrategy.rank(candidatesFor(['x:reader', 'x:writer'], request, { catalog }), strategyContext()));
    // A long document and a short answer (max_tokens): the prompt dominates, the reader is dearer.
    assert.deepEqual(order(userRequest('lorem ipsum '.repeat(2_000), { max_tokens: 20 })), ['x:writer', 'x:reader']);
    // A short question, no history: 256 expected output tokens dominate, the writer is dearer.
    assert.deepEqual(order(userRequest('Yes or no?')), ['x:reader', 'x:writer']);
    // The same question after one-word answers: the history says the answer is short.
    const terse: ChatRequest = {
      messages: [
        { role: 'user', content: 'Yes or no?' },
        { role: 'assistant', content: 'Yes.' },
        { role: 'user', content: 'And now?' },
        { role: 'assistant', content: 'No.' },
        { role: 'user', content: 'And now?' },
      ],
    };
    assert.deepEqual(order(terse), ['x:writer', 'x:reader']);
  });

  it('keeps the owner\'s order between equal costs', () => {
    const twin = { ...fixtureModel('acme:mid'), id: 'acme:twin' };
    const catalog = createModelCatalog([fixtureModel('acme:mid'), twin]);
    assert.deepEqual(ids(costStrategy.rank(candidatesFor(['acme:twin', 'acme:mid'], userRequest('Hi'), { catalog }), strategyContext())), ['acme:twin', 'acme:mid']);
  });
});
