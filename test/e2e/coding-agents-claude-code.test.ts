import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { describeRun, packageFile, runCli, temporaryDirectory } from '../support/agent-cli.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { startEgressTrap, startRecordingServer, type EgressTrap, type RecordingServer } from '../support/loopback-traffic.js';

/**
 * Claude Code (`@anthropic-ai/claude-code`, its native binary, unchanged) in print mode, `claude -p`, pointed at the
 * gateway's Anthropic Messages surface with `ANTHROPIC_BASE_URL` and given a router id as its model.
 *
 * Between Claude Code and the gateway sits a recording server that passes every request on, so the test sees each
 * request Claude Code made and what the gateway answered. Anything it tries to send elsewhere goes to a refusing
 * proxy (the egress trap) instead of the network, and the test requires that nothing did.
 *
 * What Claude Code reaches for on its own, and the settings that stop it (all its own, documented environment
 * variables). Run without them, it connects to api.anthropic.com:443 six times (its startup bootstrap, the
 * organisation's fast-mode status, the MCP server registry, the metrics opt-out check, and two batches of
 * first-party event logging) and makes a second /v1/messages call, to the gateway, to title the session:
 * - CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1: stops all of that; it also implies the three below.
 * - DISABLE_TELEMETRY=1: event logging and the metrics opt-out check (set on its own too, so that telemetry stays off
 *   should a later version narrow the umbrella variable).
 * - DISABLE_AUTOUPDATER=1: the update check and plugin auto-update.
 * - DISABLE_ERROR_REPORTING=1: crash reports.
 * A fresh HOME and CLAUDE_CONFIG_DIR keep the developer's own settings, credentials, MCP servers and hooks out.
 */

const CLAUDE = packageFile('@anthropic-ai/claude-code/bin/claude.exe');

/** Each run is one model call of a second or two; the limit only stops a hung agent from holding the suite. */
const RUN_LIMIT_MS = 45_000;

describe('Claude Code (claude -p) through the Anthropic Messages surface', () => {
  let anthropic: FakeAnthropic;
  let openai: FakeOpenAI;
  let gateway: Gateway;
  let front: RecordingServer;
  let trap: EgressTrap;
  let home: { readonly path: string; remove(): void };
  let routers: { anthropic: string; openai: string };

  before(async () => {
    anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    gateway = await startGateway({
      env: {
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-test',
      },
    });
    const create = async (name: string, model: string) =>
      (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name, models: [model], strategy: 'cost_optimized' })).id;
    routers = { anthropic: await create('claude code on anthropic', 'anthropic:claude-3-5-haiku-latest'), openai: await create('claude code on openai', 'openai:gpt-4o-mini') };
    front = await startRecordingServer({ forwardTo: gateway.origin });
    trap = await startEgressTrap();
    home = temporaryDirectory('modelport-claude-code-');
  });

  after(async () => {
    await front?.close();
    await trap?.close();
    await gateway?.close();
    await anthropic?.close();
    await openai?.close();
    home?.remove();
  });

  beforeEach(() => {
    anthropic.reset();
    openai.reset();
    front.reset();
    trap.reset();
  });

  const claudeEnvironment = (): Record<string, string> => {
    const configDirectory = join(home.path, '.claude');
    mkdirSync(configDirectory, { recursive: true });
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home.path,
      CLAUDE_CONFIG_DIR: configDirectory,
      ANTHROPIC_BASE_URL: `${front.origin}/api/router`,
      // In print mode an API key is used as it is, sent as `x-api-key`, which the Messages surface reads.
      ANTHROPIC_API_KEY: gateway.apiKey,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      ...trap.env,
    };
  };

  const usageRecords = async (routerId: string, count: number) => {
    for (let tries = 0; tries < 200; tries += 1) {
      await gateway.app.usage.flush();
      const records = await gateway.app.repositories.usage.list({ routerId });
      if (records.length >= count) return records;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return assert.fail(`fewer than ${count} usage records for router ${routerId}`);
  };

  const upstreams = [
    {
      name: 'an Anthropic model',
      router: () => routers.anthropic,
      model: 'anthropic:claude-3-5-haiku-latest',
      script: (text: string) => anthropic.setHandler(() => ({ type: 'answer', content: [{ type: 'text', text }] })),
      upstreamCalls: () => anthropic.messageRequests().map((request) => request.body as { stream?: boolean }),
    },
    {
      name: 'an OpenAI model',
      router: () => routers.openai,
      model: 'openai:gpt-4o-mini',
      script: (text: string) => openai.setHandler(() => ({ type: 'answer', content: text })),
      upstreamCalls: () => openai.chatRequests().map((request) => request.body as { stream?: boolean }),
    },
  ] as const;

  for (const upstream of upstreams) {
    it(`finishes a one-step task on ${upstream.name}: streamed, usage recorded, no request but to the gateway`, { timeout: 60_000 }, async (t) => {
      const answer = `The release is called ${randomUUID()}.`;
      upstream.script(answer);
      const workdir = join(home.path, `work-${randomUUID()}`);
      mkdirSync(workdir);

      const run = await runCli(CLAUDE, ['-p', 'What is the release called? Answer in one sentence.', '--model', upstream.router()], {
        cwd: workdir,
        env: claudeEnvironment(),
        timeoutMs: RUN_LIMIT_MS,
        signal: t.signal,
      });

      assert.equal(run.exitCode, 0, describeRun(run));
      assert.equal(run.stdout.trim(), answer, 'it prints what the routed model answered');

      // Nothing left loopback: the settings above switched off everything Claude Code sends elsewhere.
      assert.deepEqual(trap.attempts, [], 'no request went past the egress trap');

      // Every request reached the gateway at a path it serves, and the gateway answered each one.
      const requests = front.requests;
      assert.ok(requests.length > 0, 'Claude Code called the gateway');
      for (const request of requests) {
        assert.equal(request.method, 'POST', `${request.method} ${request.path}`);
        assert.match(request.path, /^\/api\/router\/v1\/messages(\?|$)/, `${request.method} ${request.path}`);
        assert.equal(request.status, 200, `${request.method} ${request.path} answered ${request.status}`);
        assert.equal(request.headers['x-api-key'], gateway.apiKey);
        const body = request.body as { model?: unknown; stream?: unknown };
        assert.equal(body.model, upstream.router(), 'the router id is the model');
        assert.equal(body.stream, true, 'Claude Code streams');
      }

      // One usage record per call, each streamed, on the router's model; the upstream was streamed to as well.
      const records = await usageRecords(upstream.router(), requests.length);
      assert.equal(records.length, requests.length);
      for (const record of records) {
        assert.equal(record.status, 200);
        assert.equal(Number(record.streamed), 1);
        assert.equal(record.model, upstream.model);
        assert.ok(record.prompt_tokens > 0 && record.completion_tokens > 0, 'tokens were counted');
        assert.ok(record.cost_usd > 0, 'the call was priced');
      }
      const upstreamCalls = upstream.upstreamCalls();
      assert.equal(upstreamCalls.length, requests.length);
      assert.ok(upstreamCalls.every((body) => body.stream === true));
    });
  }
});
