import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openAIChatResponseSchema, openAIChunkSchema } from './openai-api.js';
import { readChatResponse, readChunk } from './read-openai-response.js';

const plain = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello!', refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
  usage: {
    prompt_tokens: 19,
    completion_tokens: 9,
    total_tokens: 28,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  },
  system_fingerprint: 'fp_1',
};

function withChoice(change: Record<string, unknown>, message: Record<string, unknown> = {}): unknown {
  const choice = plain.choices[0];
  return { ...plain, choices: [{ ...choice, ...change, message: { ...choice?.message, ...message } }] };
}

function withUsage(change: Record<string, unknown> | null | undefined): unknown {
  return { ...plain, usage: change === null || change === undefined ? change : { ...plain.usage, ...change } };
}

/** Bodies the schema accepts and refuses, the usual one first. */
const bodies: Record<string, unknown> = {
  plain,
  'no usage': withUsage(undefined),
  'usage null': withUsage(null),
  'usage without details': { ...plain, usage: { prompt_tokens: 1, completion_tokens: 2 } },
  'details null': withUsage({ prompt_tokens_details: null, completion_tokens_details: null }),
  'cached tokens null': withUsage({ prompt_tokens_details: { cached_tokens: null } }),
  'cached tokens a string': withUsage({ prompt_tokens_details: { cached_tokens: '3' } }),
  'details an array': withUsage({ completion_tokens_details: [] }),
  'total tokens null': withUsage({ total_tokens: null }),
  'prompt tokens a string': withUsage({ prompt_tokens: '19' }),
  'completion tokens missing': { ...plain, usage: { prompt_tokens: 1 } },
  'content null, refusal': withChoice({}, { content: null, refusal: 'I cannot help with that.' }),
  'content a number': withChoice({}, { content: 42 }),
  'role missing': withChoice({}, { role: undefined }),
  'finish reason null': withChoice({ finish_reason: null }),
  'finish reason a number': withChoice({ finish_reason: 1 }),
  'index missing': withChoice({ index: undefined }),
  'index a string': withChoice({ index: '0' }),
  'index null': withChoice({ index: null }),
  'tool calls': withChoice({ finish_reason: 'tool_calls' }, { content: null, tool_calls: [{ id: 'call_1', function: { name: 'f', arguments: '{}' } }] }),
  'tool calls null': withChoice({}, { tool_calls: null }),
  'tool calls malformed': withChoice({}, { tool_calls: [{ id: 1 }] }),
  'message missing': { ...plain, choices: [{ index: 0, finish_reason: 'stop' }] },
  'message an array': withChoice({ message: [] }),
  'a second choice malformed': { ...plain, choices: [...plain.choices, { index: 1, message: { content: 7 } }] },
  'no choices': { ...plain, choices: [] },
  'choices an object': { ...plain, choices: { 0: plain.choices[0] } },
  'id a number': { ...plain, id: 1 },
  'fingerprint null': { ...plain, system_fingerprint: null },
  'fingerprint a number': { ...plain, system_fingerprint: 1 },
  'an array': [plain],
  null: null,
  'a string': 'hello',
};

describe('readChatResponse', () => {
  for (const [name, body] of Object.entries(bodies)) {
    it(`agrees with openAIChatResponseSchema: ${name}`, () => {
      const parsed = openAIChatResponseSchema.safeParse(body);
      const read = readChatResponse(body);
      assert.equal(read !== undefined, parsed.success);
      if (read === undefined || !parsed.success) return;
      // What the provider reads of it.
      assert.deepEqual(read.choices[0]?.message.content, parsed.data.choices[0]?.message.content);
      assert.deepEqual(read.choices[0]?.message.refusal, parsed.data.choices[0]?.message.refusal);
      assert.deepEqual(read.choices[0]?.message.tool_calls, parsed.data.choices[0]?.message.tool_calls);
      assert.deepEqual(read.choices[0]?.finish_reason, parsed.data.choices[0]?.finish_reason);
      assert.deepEqual(read.usage, parsed.data.usage);
      assert.deepEqual(read.system_fingerprint, parsed.data.system_fingerprint);
    });
  }

  it('the usual answer is the body itself (no copy); tool calls go through the schema and get its default type', () => {
    assert.equal(readChatResponse(plain), plain);
    const read = readChatResponse(bodies['tool calls']);
    assert.equal(read?.choices[0]?.message.tool_calls?.[0]?.type, 'function');
  });
});

const textChunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o-mini-2024-07-18',
  system_fingerprint: 'fp_1',
  choices: [{ index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null }],
  usage: null,
};
const chunkWith = (change: Record<string, unknown>, delta?: unknown): unknown => ({
  ...textChunk,
  choices: [{ ...textChunk.choices[0], ...change, ...(delta === undefined ? {} : { delta }) }],
});

/** Chunks the schema accepts and refuses, the usual ones first. */
const chunks: Record<string, unknown> = {
  'a text delta': textChunk,
  'the role chunk': chunkWith({}, { role: 'assistant', content: '', refusal: null }),
  'the finish chunk': chunkWith({ finish_reason: 'stop' }, {}),
  'the usage chunk': { ...textChunk, choices: [], usage: plain.usage },
  'usage without details': { ...textChunk, choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } },
  'usage malformed': { ...textChunk, choices: [], usage: { prompt_tokens: '1', completion_tokens: 2 } },
  'delta null': chunkWith({}, null),
  'delta missing': { ...textChunk, choices: [{ index: 0, finish_reason: 'stop' }] },
  'delta an array': chunkWith({}, []),
  'content a number': chunkWith({}, { content: 1 }),
  'refusal delta': chunkWith({}, { refusal: 'No.' }),
  'tool-call delta': chunkWith({}, { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: '' } }] }),
  'tool-call delta malformed': chunkWith({}, { tool_calls: [{ id: 'call_1' }] }),
  'tool calls null': chunkWith({}, { content: 'x', tool_calls: null }),
  'finish reason a number': chunkWith({ finish_reason: 2 }),
  'index a string': chunkWith({ index: '0' }),
  'no choices field': { id: 'chatcmpl-1', usage: null },
  'choices an object': { ...textChunk, choices: {} },
  'id a number': { ...textChunk, id: 7 },
  'an array': [textChunk],
  null: null,
};

describe('readChunk', () => {
  for (const [name, chunk] of Object.entries(chunks)) {
    it(`agrees with openAIChunkSchema: ${name}`, () => {
      const parsed = openAIChunkSchema.safeParse(chunk);
      const read = readChunk(chunk);
      assert.equal(read !== undefined, parsed.success);
      if (read === undefined || !parsed.success) return;
      // What the provider reads of it.
      assert.deepEqual(read.choices, parsed.data.choices);
      assert.deepEqual(read.usage, parsed.data.usage);
    });
  }

  it('the usual chunk is the chunk itself (no copy)', () => {
    assert.equal(readChunk(textChunk), textChunk);
    assert.equal(readChunk(chunks['the usage chunk']), chunks['the usage chunk']);
  });
});
