import type { LoadTarget } from './load.js';

/** What a measured request must look like, checked once per path before any load. */
export interface Expectation {
  /** `model` the answer must name. */
  readonly model: string;
  /** Whether the answer must carry the gateway's `_meta` (cost and carbon accounted). */
  readonly meta: boolean;
}

async function post(target: LoadTarget): Promise<{ status: number; text: string }> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, text: await response.text() };
}

function check(condition: boolean, target: LoadTarget, what: string, text: string): void {
  if (!condition) throw new Error(`preflight: ${target.name} ${what}. Answer: ${text.slice(0, 800)}`);
}

/**
 * One request on each path before the load starts: a benchmark of error answers
 * (a wrong key, an unknown router, a rate limit) would look fast and mean nothing.
 */
export async function preflight(completion: LoadTarget, stream: LoadTarget, expected: Expectation): Promise<void> {
  const answer = await post(completion);
  check(answer.status === 200, completion, `answered HTTP ${answer.status}`, answer.text);
  const body = JSON.parse(answer.text) as {
    model?: unknown;
    usage?: { total_tokens?: unknown };
    _meta?: { modelUsed?: unknown; cost?: unknown; carbonGrams?: unknown };
  };
  check(body.model === expected.model, completion, `named model ${String(body.model)}, not ${expected.model}`, answer.text);
  check(body.usage?.total_tokens === 28, completion, 'did not pass the upstream usage through', answer.text);
  if (expected.meta) {
    check(body._meta?.modelUsed === expected.model, completion, 'has no _meta.modelUsed', answer.text);
    check(typeof body._meta?.cost === 'number' && body._meta.cost > 0, completion, 'has no cost in _meta', answer.text);
    check(typeof body._meta?.carbonGrams === 'number' && body._meta.carbonGrams > 0, completion, 'has no carbon in _meta', answer.text);
  }

  const streamed = await post(stream);
  check(streamed.status === 200, stream, `answered HTTP ${streamed.status}`, streamed.text);
  check(streamed.text.endsWith('data: [DONE]\n\n'), stream, 'did not end with [DONE]', streamed.text);
  check(streamed.text.includes('"usage":{'), stream, 'sent no usage chunk', streamed.text);
  if (expected.meta) check(streamed.text.includes('"_meta":{'), stream, 'sent no _meta', streamed.text);
}
