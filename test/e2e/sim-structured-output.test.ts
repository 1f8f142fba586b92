import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The demo's offline simulator behind a real gateway answers the openai SDK's
 * structured-output and tool-calling helpers with values their zod schemas accept.
 */
const Event = z.object({
  name: z.string(),
  date: z.string(),
  attendees: z.array(z.object({ name: z.string(), role: z.enum(['host', 'guest']) })).min(2),
  capacity: z.number().int().min(10).max(500),
  public: z.boolean(),
  notes: z.string().nullable(),
});

const GetWeather = z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) });

describe('sim: structured output and tool calls through the openai SDK', () => {
  let gateway: Gateway;
  let client: OpenAI;
  before(async () => {
    gateway = await startGateway();
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl });
  });
  after(async () => {
    await gateway.close();
  });

  it('chat.completions.parse with zodResponseFormat gives a parsed object', async () => {
    for (const topic of ['a science fair', 'a book club']) {
      const completion = await client.chat.completions.parse({
        model: gateway.router.id,
        messages: [{ role: 'user', content: `Plan ${topic}.` }],
        response_format: zodResponseFormat(Event, 'event'),
      });
      const message = completion.choices[0]?.message;
      assert.equal(completion.choices[0]?.finish_reason, 'stop');
      assert.ok(message?.parsed, message?.content ?? 'no content');
      assert.deepEqual(Event.parse(message.parsed), message.parsed);
      assert.ok(message.parsed.attendees.length >= 2);
    }
  });

  it('the streamed helper puts the same JSON together', async () => {
    const request = {
      model: gateway.router.id,
      messages: [{ role: 'user' as const, content: 'Plan a picnic.' }],
      response_format: zodResponseFormat(Event, 'event'),
    };
    const parsed = await client.chat.completions.parse(request);
    const stream = client.chat.completions.stream(request);
    let deltas = 0;
    stream.on('content.delta', () => (deltas += 1));
    const final = await stream.finalChatCompletion();
    assert.ok(deltas > 3, String(deltas));
    assert.deepEqual(final.choices[0]?.message.parsed, parsed.choices[0]?.message.parsed);
  });

  it('a tool call with arguments the tool schema accepts, then text after the result', async () => {
    const tools = [zodFunction({ name: 'get_weather', parameters: GetWeather })];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris? Use get_weather.' }];
    const first = await client.chat.completions.parse({ model: gateway.router.id, messages, tools });
    assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
    const answer = first.choices[0]?.message ?? assert.fail('no message');
    const call = answer.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(GetWeather.parse(call.function.parsed_arguments), call.function.parsed_arguments);

    const second = await client.chat.completions.create({
      model: gateway.router.id,
      messages: [...messages, answer, { role: 'tool', tool_call_id: call.id, content: '21 degrees' }],
      tools,
    });
    assert.equal(second.choices[0]?.finish_reason, 'stop');
    assert.equal(typeof second.choices[0]?.message.content, 'string');

    const none = await client.chat.completions.create({ model: gateway.router.id, messages, tools, tool_choice: 'none' });
    assert.equal(none.choices[0]?.message.tool_calls, undefined);
  });

  it('responses.parse with zodTextFormat', async () => {
    const response = await client.responses.parse({
      model: gateway.router.id,
      input: 'Plan a hackathon.',
      text: { format: zodTextFormat(Event, 'event') },
    });
    assert.ok(response.output_parsed);
    assert.deepEqual(Event.parse(response.output_parsed), response.output_parsed);
  });

  it('max_tokens ends the answer early with finish_reason length', async () => {
    const completion = await client.chat.completions.create({
      model: gateway.router.id,
      messages: [{ role: 'user', content: 'Tell me everything.' }],
      max_tokens: 5,
    });
    assert.equal(completion.choices[0]?.finish_reason, 'length');
    assert.ok((completion.usage?.completion_tokens ?? Infinity) <= 5);
  });
});
