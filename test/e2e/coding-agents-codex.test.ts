import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { describeRun, packageFile, runCli, temporaryDirectory } from '../support/agent-cli.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { startEgressTrap, startRecordingServer, type CapturedRequest, type EgressTrap, type RecordingServer } from '../support/loopback-traffic.js';

/**
 * The Codex CLI (`@openai/codex`, its native binary, unchanged) run non-interactively, `codex exec`, with a custom
 * model provider whose `base_url` is the gateway and `wire_api = "responses"`, and a router id as its model.
 *
 * First against a recording server of the test's own that answers in OpenAI's Responses stream format: that pins
 * down what Codex sends to `/responses` (which the gateway's Responses surface must accept) without the gateway.
 * Then through the gateway, with a recording server in front that passes every request on. Anything Codex tries to
 * send elsewhere goes to a refusing proxy (the egress trap) instead of the network; the test requires that nothing did.
 *
 * What Codex reaches for on its own, and its settings (config.toml in a fresh CODEX_HOME) that stop it:
 * - `[analytics] enabled = false`: OTLP metrics to https://ab.chatgpt.com/otlp/v1/metrics.
 * - `[features] plugins = false`: the curated-plugin sync at startup (`git ls-remote https://github.com/openai/plugins.git`,
 *   then api.github.com/repos/openai/plugins, then chatgpt.com/backend-api/plugins/export/curated).
 * - `[features] remote_plugin = false` and `apps = false`: ChatGPT-hosted plugins and apps (connectors, an MCP server
 *   of OpenAI's); they need a ChatGPT sign-in, which this run lacks, and are off so that no version tries.
 * - `check_for_update_on_startup = false` and `[feedback] enabled = false`: the update check and feedback uploads.
 * - `web_search = "disabled"`: otherwise every request carries OpenAI's hosted `{"type":"web_search"}` tool, which
 *   only OpenAI's own Responses API runs; the router's model here is a chat-completions model.
 * No MCP server is configured in the fresh CODEX_HOME. `approval_policy = "never"` and `sandbox_mode = "read-only"`
 * suit a non-interactive run of a task that runs no command. `--strict-config` makes Codex refuse a key it does not
 * know, so a renamed setting fails the test instead of silently leaving its traffic on.
 */

const CODEX = packageFile('@openai/codex/bin/codex.js');

/** Each run is one model call of a second or two; the limit only stops a hung agent from holding the suite. */
const RUN_LIMIT_MS = 45_000;

const KEY_VARIABLE = 'MODELPORT_API_KEY';

function codexConfig(baseUrl: string, model: string): string {
  return `model = ${JSON.stringify(model)}
model_provider = "modelport"
approval_policy = "never"
sandbox_mode = "read-only"
web_search = "disabled"
check_for_update_on_startup = false

[model_providers.modelport]
name = "ModelPort"
base_url = ${JSON.stringify(baseUrl)}
env_key = "${KEY_VARIABLE}"
wire_api = "responses"
# A refusal ends the run at once instead of being retried with back-off.
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
`;
}

/** OpenAI's Responses stream for a one-message text answer (https://platform.openai.com/docs/api-reference/responses-streaming). */
function responsesTextStream(text: string, model: string): string {
  const base = { id: `resp_${randomUUID().replaceAll('-', '')}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] as unknown[] };
  const item = { id: `msg_${randomUUID().replaceAll('-', '')}`, type: 'message', role: 'assistant' };
  const part = { type: 'output_text', annotations: [] };
  const done = { ...item, status: 'completed', content: [{ ...part, text }] };
  const usage = { input_tokens: 1_200, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1_209 };
  const position = { item_id: item.id, output_index: 0, content_index: 0 };
  const events: [string, Record<string, unknown>][] = [
    ['response.created', { response: { ...base, status: 'in_progress', usage: null } }],
    ['response.in_progress', { response: { ...base, status: 'in_progress', usage: null } }],
    ['response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }],
    ['response.content_part.added', { ...position, part: { ...part, text: '' } }],
    ['response.output_text.delta', { ...position, delta: text }],
    ['response.output_text.done', { ...position, text }],
    ['response.content_part.done', { ...position, part: { ...part, text } }],
    ['response.output_item.done', { output_index: 0, item: done }],
    ['response.completed', { response: { ...base, status: 'completed', output: [done], usage } }],
  ];
  return events.map(([type, data], index) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: index, ...data })}\n\n`).join('');
}

interface ResponsesBody {
  readonly model?: unknown;
  readonly stream?: unknown;
  readonly store?: unknown;
  readonly input?: readonly { type?: string; role?: string; content?: readonly { type?: string; text?: string }[] }[];
  readonly tools?: readonly { type?: string; name?: string; tools?: readonly { type?: string }[] }[];
}

describe('Codex CLI (codex exec) through the Responses surface', () => {
  let openai: FakeOpenAI;
  let gateway: Gateway;
  let routerId: string;
  let trap: EgressTrap;
  let home: { readonly path: string; remove(): void };

  before(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    gateway = await startGateway({ env: { OPENAI_BASE_URL: openai.baseUrl, OPENAI_API_KEY: 'sk-test' } });
    routerId = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'codex', models: ['openai:gpt-4o-mini'], strategy: 'cost_optimized' })).id;
    trap = await startEgressTrap();
    home = temporaryDirectory('modelport-codex-');
  });

  after(async () => {
    await trap?.close();
    await gateway?.close();
    await openai?.close();
    home?.remove();
  });

  beforeEach(() => {
    openai.reset();
    trap.reset();
  });

  /** Runs `codex exec` once, in a fresh CODEX_HOME and working directory, against `baseUrl`. */
  const runCodex = async (baseUrl: string, prompt: string, signal: AbortSignal) => {
    const run = join(home.path, `run-${randomUUID()}`);
    const codexHome = join(run, 'codex-home');
    const workdir = join(run, 'work');
    mkdirSync(codexHome, { recursive: true });
    mkdirSync(workdir);
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(baseUrl, routerId));
    const lastMessage = join(run, 'last-message.txt');
    const args = ['exec', '--strict-config', '--skip-git-repo-check', '--ephemeral', '--color', 'never', '--output-last-message', lastMessage, prompt];
    const result = await runCli(process.execPath, [CODEX, ...args], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: run, CODEX_HOME: codexHome, [KEY_VARIABLE]: gateway.apiKey, ...trap.env },
      timeoutMs: RUN_LIMIT_MS,
      signal,
    });
    const printed = (() => {
      try {
        return readFileSync(lastMessage, 'utf8');
      } catch {
        return undefined;
      }
    })();
    return { ...result, lastMessage: printed };
  };

  const assertResponsesCall = (request: CapturedRequest, prompt: string) => {
    assert.equal(request.method, 'POST', `${request.method} ${request.path}`);
    assert.equal(request.path, '/api/router/v1/responses');
    assert.equal(request.headers.authorization, `Bearer ${gateway.apiKey}`, 'the key comes from the variable env_key names');
    const body = request.body as ResponsesBody;
    assert.equal(body.model, routerId, 'the router id is the model');
    assert.equal(body.stream, true, 'Codex streams');
    const userTexts = (body.input ?? []).filter((item) => item.type === 'message' && item.role === 'user').flatMap((item) => item.content ?? []);
    assert.ok(userTexts.some((part) => part.type === 'input_text' && part.text === prompt), 'the task is a user input_text');
    // Only function tools (some grouped in a `namespace`): no hosted tool, web_search included, since it is disabled.
    for (const tool of body.tools ?? []) {
      assert.ok(tool.type === 'function' || tool.type === 'namespace', `tool ${tool.name ?? ''} of type ${tool.type ?? ''}`);
      for (const inner of tool.tools ?? []) assert.equal(inner.type, 'function', `a tool of namespace ${tool.name ?? ''}`);
    }
  };

  it('sends a streamed Responses call, and nothing anywhere else (scripted server, no gateway)', { timeout: 60_000 }, async (t) => {
    const answer = `The release is called ${randomUUID()}.`;
    const prompt = 'What is the release called? Answer in one sentence.';
    const scripted = await startRecordingServer({
      answer: (request) => {
        const model = String((request.body as ResponsesBody | undefined)?.model ?? '');
        return { headers: { 'content-type': 'text/event-stream' }, body: responsesTextStream(answer, model) };
      },
    });
    try {
      const run = await runCodex(`${scripted.origin}/api/router/v1`, prompt, t.signal);
      assert.equal(run.exitCode, 0, describeRun(run));
      assert.equal(run.stdout.trim(), answer, 'it prints the final message');
      assert.equal(run.lastMessage?.trim(), answer);
      assert.deepEqual(trap.attempts, [], 'no request went past the egress trap');
      assert.equal(scripted.requests.length, 1, 'one model call for a one-step task');
      for (const request of scripted.requests) assertResponsesCall(request, prompt);
    } finally {
      await scripted.close();
    }
  });

  it('finishes a one-step task through the gateway: streamed, usage recorded, no request but to the gateway', { timeout: 60_000 }, async (t) => {
    // The route exists once the Responses surface is registered; until then the gateway answers 404 and this waits.
    const probe = await fetch(`${gateway.origin}/api/router/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    await probe.body?.cancel();
    if (probe.status === 404) {
      t.skip('POST /api/router/v1/responses answers 404: the Responses surface (src/http/openai-responses/) is not registered yet');
      return;
    }

    const answer = `The release is called ${randomUUID()}.`;
    const prompt = 'What is the release called? Answer in one sentence.';
    openai.setHandler(() => ({ type: 'answer', content: answer }));
    const front = await startRecordingServer({ forwardTo: gateway.origin });
    try {
      const run = await runCodex(`${front.origin}/api/router/v1`, prompt, t.signal);
      assert.equal(run.exitCode, 0, describeRun(run));
      assert.equal(run.stdout.trim(), answer, 'it prints what the routed model answered');
      assert.equal(run.lastMessage?.trim(), answer);
      assert.deepEqual(trap.attempts, [], 'no request went past the egress trap');

      const requests = front.requests;
      assert.ok(requests.length > 0, 'Codex called the gateway');
      for (const request of requests) {
        assertResponsesCall(request, prompt);
        assert.equal(request.status, 200, `the gateway answered ${request.status}`);
      }

      // One usage record per call, each streamed, on the router's model; the upstream was streamed to as well.
      let records = await gateway.app.repositories.usage.list({ routerId });
      for (let tries = 0; records.length < requests.length && tries < 200; tries += 1) {
        await gateway.app.usage.flush();
        records = await gateway.app.repositories.usage.list({ routerId });
        if (records.length < requests.length) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(records.length, requests.length, 'a usage record per call');
      for (const record of records) {
        assert.equal(record.status, 200);
        assert.equal(Number(record.streamed), 1);
        assert.equal(record.model, 'openai:gpt-4o-mini');
        assert.ok(record.prompt_tokens > 0 && record.completion_tokens > 0, 'tokens were counted');
        assert.ok(record.cost_usd > 0, 'the call was priced');
      }
      const upstreamCalls = openai.chatRequests();
      assert.equal(upstreamCalls.length, requests.length);
      assert.ok(upstreamCalls.every((call) => (call.body as { stream?: unknown }).stream === true));
    } finally {
      await front.close();
    }
  });
});
