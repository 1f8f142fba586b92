import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  Agent,
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAIProvider,
  OpenAITracingExporter,
  Runner,
  setTraceProcessors,
  setTracingDisabled,
  setTracingExportApiKey,
  tool,
} from '@openai/agents';
import { EnvHttpProxyAgent, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { z } from 'zod';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { startEgressTrap, startRecordingServer, type EgressTrap, type RecordingServer } from '../support/loopback-traffic.js';
import { CHAT_UPSTREAM_MODELS, startChatFakes, type ChatFakes, type UpstreamName } from '../support/scripted-chat-upstreams.js';

/**
 * The OpenAI Agents SDK (`@openai/agents`) with its OpenAI client pointed at the gateway and the Responses API chosen
 * (an `OpenAIProvider` with `baseURL`, `apiKey` and `useResponses`, which builds the client with the SDK's own `openai`
 * release; a recording server in front of the gateway keeps what it sent): an `Agent` with one function tool runs to its final output (whole and streamed) over a router whose model is an
 * OpenAI, an Anthropic or a Gemini fake. The SDK's own non-essential traffic is its tracing export to api.openai.com
 * (with `OPENAI_API_KEY` set, as it is when that variable holds the gateway key, the key goes with it);
 * `setTracingDisabled(true)` switches it off, and a proxy trap in front of every `fetch` of this process shows that
 * nothing leaves loopback.
 */

const INSTRUCTIONS = 'You are a terse weather assistant. Use the tool.';
const QUESTION = 'What is the weather in Lisbon?';
const ARGS = { city: 'Lisbon', unit: 'celsius' } as const;
const RESULT = { temperature: 17, condition: 'windy' } as const;
const PIECES = ['Windy ', 'and 17 °C ', 'in Lisbon.'] as const;
const FINAL = PIECES.join('');
const CALL_USAGE = { input: 42, output: 11 } as const;
const ANSWER_USAGE = { input: 64, output: 8 } as const;

describe('OpenAI Agents SDK (@openai/agents) → gateway /responses', () => {
  let fakes: ChatFakes;
  let gateway: Gateway;
  let trap: EgressTrap;
  let recorder: RecordingServer;
  let runner: Runner;
  let previousDispatcher: Dispatcher;

  before(async () => {
    fakes = await startChatFakes();
    gateway = await startGateway({ env: { ...fakes.env, MODELPORT_DEFAULT_RPM: '100000' } });
    trap = await startEgressTrap();
    // Every fetch of this process (the SDK's, its tracing exporter's) goes through the trap unless it is for loopback.
    const proxy = trap.env.HTTPS_PROXY ?? assert.fail('the trap has no proxy address');
    previousDispatcher = getGlobalDispatcher();
    setGlobalDispatcher(new EnvHttpProxyAgent({ httpProxy: proxy, httpsProxy: proxy, noProxy: trap.env.NO_PROXY ?? '' }));
    recorder = await startRecordingServer({ forwardTo: gateway.origin });
    runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: gateway.apiKey, baseURL: `${recorder.origin}/api/router/v1`, useResponses: true }) });
    setTracingDisabled(true);
    // As OPENAI_API_KEY=<gateway key> would: the exporter has a key, so only the setting above keeps traces home.
    setTracingExportApiKey(gateway.apiKey);
  });
  after(async () => {
    setGlobalDispatcher(previousDispatcher);
    await recorder.close();
    await gateway.close();
    await fakes.close();
    await trap.close();
  });
  beforeEach(() => {
    fakes.reset();
    recorder.reset();
    trap.reset();
  });

  it('the trap is live: a fetch to api.openai.com from this process lands in it', async () => {
    await assert.rejects(fetch('https://api.openai.com/v1/models'));
    assert.deepEqual(trap.attempts, [{ kind: 'connect', target: 'api.openai.com:443' }]);
  });

  for (const [name, modelId] of Object.entries(CHAT_UPSTREAM_MODELS) as [UpstreamName, string][]) {
    for (const streamed of [false, true]) {
      it(`over ${name} (${modelId}), ${streamed ? 'streamed' : 'whole'}: the tool runs with the scripted arguments, the final output uses its result, usage is recorded`, async () => {
        const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: `agents ${name} ${String(streamed)}`, models: [modelId], strategy: 'cost_optimized' });
        const upstream = fakes.upstream(name);
        const callId = upstream.answerToolCall('get_weather', ARGS, CALL_USAGE);
        upstream.answerText(PIECES, ANSWER_USAGE);
        const ran: unknown[] = [];
        const getWeather = tool({
          name: 'get_weather',
          description: 'The current weather in a city.',
          parameters: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
          execute: async (input) => {
            ran.push(input);
            return RESULT;
          },
        });
        const agent = new Agent({ name: 'Weather', instructions: INSTRUCTIONS, model: router.id, tools: [getWeather] });

        let finalOutput: unknown;
        let usage: { requests: number; inputTokens: number; outputTokens: number };
        if (streamed) {
          const result = await runner.run(agent, QUESTION, { stream: true });
          let text = '';
          for await (const event of result.toTextStream()) text += event;
          await result.completed;
          assert.equal(result.error, null);
          assert.equal(text, FINAL, 'the streamed text of the last turn');
          finalOutput = result.finalOutput;
          usage = result.state.usage;
        } else {
          const result = await runner.run(agent, QUESTION);
          finalOutput = result.finalOutput;
          usage = result.state.usage;
        }
        assert.equal(finalOutput, FINAL);
        assert.deepEqual(ran, [ARGS]);
        assert.deepEqual(
          [usage.requests, usage.inputTokens, usage.outputTokens],
          [2, CALL_USAGE.input + ANSWER_USAGE.input, CALL_USAGE.output + ANSWER_USAGE.output],
        );

        // Both turns went to the Responses endpoint; the second carried the call and the tool's output.
        assert.deepEqual(
          recorder.requests.map((request) => `${request.method} ${request.path} ${request.status}`),
          ['POST /api/router/v1/responses 200', 'POST /api/router/v1/responses 200'],
        );
        const [first, second] = recorder.requests.map((request) => (request.body ?? {}) as Record<string, unknown>);
        assert.deepEqual([first?.stream, second?.stream], [streamed, streamed]);
        assert.equal(first?.instructions, INSTRUCTIONS);
        const output = (second?.input as { type?: string; call_id?: string; output?: unknown }[]).find((item) => item.type === 'function_call_output') ?? assert.fail('no function_call_output');
        if (callId !== undefined) assert.equal(output.call_id, callId);
        const received = upstream.toolResults(upstream.bodies()[1] ?? assert.fail('no second upstream request'));
        assert.deepEqual(received, [{ call: callId ?? 'get_weather', content: RESULT }]);

        // The gateway recorded each call's usage as the upstream counted it.
        await gateway.app.usage.flush();
        const records = await gateway.app.repositories.usage.list({ routerId: router.id });
        assert.deepEqual(
          records.map((record) => [record.model, record.status, record.prompt_tokens, record.completion_tokens, Boolean(record.streamed)]).sort((a, b) => Number(a[2]) - Number(b[2])),
          [
            [modelId, 200, CALL_USAGE.input, CALL_USAGE.output, streamed],
            [modelId, 200, ANSWER_USAGE.input, ANSWER_USAGE.output, streamed],
          ],
        );
        assert.ok(records.every((record) => record.cost_usd > 0));

        await getGlobalTraceProvider().forceFlush();
        assert.deepEqual(trap.attempts, [], 'nothing left loopback');
      });
    }
  }

  // Last: it turns tracing on. It shows what the check above would catch: the SDK's exporter posting to OpenAI.
  it('with tracing on, the same run would post its traces to api.openai.com (what setTracingDisabled(true) switches off)', async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'agents tracing', models: [CHAT_UPSTREAM_MODELS.openai], strategy: 'cost_optimized' });
    fakes.upstream('openai').answerText(PIECES, ANSWER_USAGE);
    // The SDK's own exporter, as `@openai/agents` installs it on import, with one attempt instead of three.
    setTraceProcessors([new BatchTraceProcessor(new OpenAITracingExporter({ maxRetries: 1 }))]);
    setTracingDisabled(false);
    try {
      const result = await runner.run(new Agent({ name: 'Weather', instructions: INSTRUCTIONS, model: router.id }), QUESTION);
      assert.equal(result.finalOutput, FINAL);
      await getGlobalTraceProvider().forceFlush();
    } finally {
      setTracingDisabled(true);
    }
    assert.deepEqual(trap.attempts, [{ kind: 'connect', target: 'api.openai.com:443' }]);
  });
});
