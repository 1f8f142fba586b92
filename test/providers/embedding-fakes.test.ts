import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { createBedrockSigner } from '../../src/providers/bedrock/sign-bedrock-request.js';
import { FAKE_AWS_CREDENTIALS, startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock.js';
import { fakeEmbedding, fromFloat32Base64 } from '../support/fake-embedding-vectors.js';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';

/**
 * The fakes' embeddings endpoints on the wire, as a client that calls them directly
 * sees them: the bytes of their answers and the refusals of what the real services refuse.
 */

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

const norm = (vector: readonly number[]): number => Math.hypot(...vector);

describe('fake-embedding-vectors', () => {
  it('unit vectors of the model’s length, equal for equal inputs, different across inputs and models', () => {
    const vector = fakeEmbedding('text-embedding-3-small', 'hello');
    assert.equal(vector.length, 1536);
    assert.ok(Math.abs(norm(vector) - 1) < 1e-5);
    assert.deepEqual(fakeEmbedding('text-embedding-3-small', 'hello'), vector);
    assert.notDeepEqual(fakeEmbedding('text-embedding-3-small', 'hello!'), vector);
    assert.notDeepEqual(fakeEmbedding('text-embedding-3-large', 'hello').slice(0, 1536), vector);
  });

  it('shortened as Matryoshka models shorten: the first values, scaled back to unit length', () => {
    const full = fakeEmbedding('gemini-embedding-001', 'hello');
    const short = fakeEmbedding('gemini-embedding-001', 'hello', 8);
    const scale = norm(full.slice(0, 8));
    short.forEach((value, index) => assert.ok(Math.abs(value - (full[index] ?? 0) / scale) < 1e-6));
  });
});

describe('fake-openai /v1/embeddings', () => {
  let fake: FakeOpenAI;
  const auth = { authorization: 'Bearer sk-test' };
  before(async () => {
    fake = await startFakeOpenAI();
  });
  after(() => fake.close());

  it("answers OpenAI's list, pretty-printed, keys in OpenAI's order", async () => {
    const answer = await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input: ['a b c d e', 'f'], dimensions: 3 }, auth);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json');
    const expected = {
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: fakeEmbedding('text-embedding-3-small', 'a b c d e', 3) },
        { object: 'embedding', index: 1, embedding: fakeEmbedding('text-embedding-3-small', 'f', 3) },
      ],
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    };
    assert.equal(answer.text, `${JSON.stringify(expected, null, 2)}\n`);
  });

  it('encoding_format base64: little-endian float32s carrying the same numbers; one string input, one token array', async () => {
    const floats = JSON.parse((await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input: 'hello' }, auth)).text) as { data: { embedding: number[] }[] };
    const base64 = JSON.parse((await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input: 'hello', encoding_format: 'base64' }, auth)).text) as { data: { embedding: string }[] };
    assert.deepEqual(fromFloat32Base64(base64.data[0]?.embedding ?? ''), floats.data[0]?.embedding);
    const tokens = JSON.parse((await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input: [1, 2, 3] }, auth)).text) as { data: unknown[] };
    assert.equal(tokens.data.length, 1, 'a flat token array is one input');
  });

  it('refuses what OpenAI refuses: bad input, dimensions on ada-002, no key', async () => {
    for (const input of ['', [], ['a', [1]], [[]]]) {
      const refused = await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input }, auth);
      assert.equal(refused.status, 400, JSON.stringify(input));
      assert.match(refused.text, /'\$\.input' is invalid/);
    }
    assert.match((await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-ada-002', input: 'x', dimensions: 8 }, auth)).text, /does not support specifying dimensions/);
    assert.equal((await post(`${fake.baseUrl}/embeddings`, { model: 'text-embedding-3-small', input: 'x' }, {})).status, 401);
  });

  it('an embeddings answer scripted for a chat request is a 500, the test told', async () => {
    fake.enqueue({ type: 'embeddings' });
    const answer = await post(`${fake.baseUrl}/chat/completions`, { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, auth);
    assert.equal(answer.status, 500);
    assert.match(answer.text, /scripted for a chat request/);
  });
});

describe('fake-gemini :embedContent and :batchEmbedContents', () => {
  let fake: FakeGemini;
  const key = { 'x-goog-api-key': 'gemini-test-key' };
  const url = (method: string) => `${fake.baseUrl}/v1beta/models/text-embedding-004:${method}`;
  before(async () => {
    fake = await startFakeGemini();
  });
  after(() => fake.close());

  it("answers Google's EmbedContentResponse and BatchEmbedContentsResponse, without a token count", async () => {
    const single = await post(url('embedContent'), { content: { parts: [{ text: 'hello' }] } }, key);
    assert.equal(single.text, `${JSON.stringify({ embedding: { values: fakeEmbedding('text-embedding-004', 'hello') } }, null, 2)}\n`);
    const requests = ['a', 'b'].map((text) => ({ model: 'models/text-embedding-004', content: { parts: [{ text }] }, outputDimensionality: 4 }));
    const batch = await post(url('batchEmbedContents'), { requests }, key);
    assert.deepEqual(JSON.parse(batch.text), { embeddings: ['a', 'b'].map((text) => ({ values: fakeEmbedding('text-embedding-004', text, 4) })) });
  });

  it('refuses a batch request naming another model, an empty batch and one over 100', async () => {
    const other = await post(url('batchEmbedContents'), { requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'a' }] } }] }, key);
    assert.equal(other.status, 400);
    assert.equal((JSON.parse(other.text) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
    assert.equal((await post(url('batchEmbedContents'), { requests: [] }, key)).status, 400);
    const many = Array.from({ length: 101 }, () => ({ model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } }));
    assert.equal((await post(url('batchEmbedContents'), { requests: many }, key)).status, 400);
  });
});

describe('fake-bedrock InvokeModel (Titan Text Embeddings)', () => {
  let fake: FakeBedrock;
  const path = '/model/amazon.titan-embed-text-v2%3A0/invoke';
  const signedPost = async (body: unknown) => {
    const payload = JSON.stringify(body);
    const sign = createBedrockSigner(FAKE_AWS_CREDENTIALS, 'us-east-1');
    const headers = await sign(new URL(`${fake.baseUrl}${path}`), payload, { 'content-type': 'application/json' });
    return post(`${fake.baseUrl}${path}`, payload, headers);
  };
  before(async () => {
    fake = await startFakeBedrock();
  });
  after(() => fake.close());

  it('checks the SigV4 signature of an invoke call as of a Converse call', async () => {
    const unsigned = await post(`${fake.baseUrl}${path}`, { inputText: 'x' }, {});
    assert.equal(unsigned.status, 403);
    assert.match(String(unsigned.headers['x-amzn-errortype']), /^MissingAuthenticationTokenException/);
  });

  it("answers Titan v2's body, its token count also in x-amzn-bedrock-input-token-count", async () => {
    const answer = await signedPost({ inputText: 'hello world', dimensions: 256, normalize: true });
    assert.equal(answer.status, 200);
    const vector = fakeEmbedding('amazon.titan-embed-text-v2:0', 'hello world', 256);
    assert.equal(answer.text, JSON.stringify({ embedding: vector, embeddingsByType: { float: vector }, inputTextTokenCount: 3 }));
    assert.equal(answer.headers['x-amzn-bedrock-input-token-count'], '3');
  });

  it("refuses what Titan refuses, with Bedrock's ValidationException messages", async () => {
    for (const [body, message] of [
      [{ inputText: 'x', dimensions: 300 }, /#\/dimensions: 300 is not a valid enum value/],
      [{ texts: ['x'] }, /extraneous key \[texts\]/],
      [{ dimensions: 256 }, /required key \[inputText\] not found/],
    ] as const) {
      const refused = await signedPost(body);
      assert.equal(refused.status, 400);
      assert.match(String(refused.headers['x-amzn-errortype']), /^ValidationException/);
      assert.match(refused.text, message);
    }
  });
});
