import { GatewayError, errors } from '../lib/errors.js';
import type { CallAccount } from '../accounting/call-accounting.js';
import { formatUsd } from '../lib/money.js';
import { createId } from '../lib/random-id.js';
import type { ChatMessage, ChatRequest, Usage } from '../providers/contract.js';
import { RoutingFailure } from '../routing/fallback.js';
import { roundTo } from '../pipeline/call-state.js';
import { accountStream, callRoute, streamRoute, type PreparedRoute, type RoutedAnswer, type StartedStream } from '../pipeline/route-and-call.js';
import { prepareStep, settleStep, type StepDependencies } from '../pipeline/step-call.js';
import type { AgentExecutionsRepository, StepRecord } from '../storage/agent-executions-repository.js';
import type { AgentRecord } from '../storage/agents-repository.js';
import type { AgentPlan, PlannedStep } from './agent-definition.js';
import { runSchedule } from './agent-scheduler.js';
import { buildRequest, conversationText, lastUserText, parseJsonOutput, wantsJson } from './agent-step-request.js';
import { TemplateError, type TemplateValues } from './agent-template.js';

/**
 * What running agents needs: the pipeline's step dependencies (routers, routing, usage records, the budgets checked
 * before every step and charged after it) and the execution records.
 */
export interface AgentRuntime extends StepDependencies {
  readonly executions: AgentExecutionsRepository;
}

export interface AgentRunRequest {
  readonly ownerId: string;
  readonly keyId: string | undefined;
  readonly agent: AgentRecord;
  readonly plan: AgentPlan;
  readonly messages: readonly ChatMessage[];
  /** The final step streams; the others never do. */
  readonly stream: boolean;
  /** The client's signal: its abort ends the run. */
  readonly signal?: AbortSignal | undefined;
  /** performance.now() when the run was asked for: total_latency and the timeout count from it. */
  readonly startedAt: number;
}

/** A step in `_meta.steps`. */
export interface AgentStepMeta {
  readonly name: string;
  readonly status: StepRecord['status'];
  readonly router: string | null;
  readonly model: string | null;
  readonly cost: number;
  readonly latency: number;
  readonly carbon: number;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** The agent form of `_meta` (spec 2.3), plus total_carbon, agent_version and steps. */
export interface AgentMeta {
  readonly execution_id: string;
  readonly agent_name: string;
  readonly agent_version: number;
  readonly steps_executed: number;
  readonly total_cost: number;
  readonly total_latency: number;
  readonly total_carbon: number;
  readonly models_used: readonly string[];
  readonly steps: readonly AgentStepMeta[];
}

export interface StreamFinish {
  readonly generatedText: string;
  /** The provider's counts; undefined: counted with the tokenizer. */
  readonly usage: Usage | undefined;
  /** Set when the stream broke after it had started. */
  readonly failure?: GatewayError | undefined;
}

export type AgentRunResult =
  | { readonly kind: 'answer'; readonly executionId: string; readonly answer: RoutedAnswer; readonly meta: AgentMeta }
  | {
      readonly kind: 'stream';
      readonly executionId: string;
      readonly stream: StartedStream;
      /** Accounts and records the final step once its stream ended; gives the `_meta` for the last chunk. */
      finish(end: StreamFinish): Promise<AgentMeta>;
    };

/**
 * Runs an agent: the steps before the last as their dependencies allow (in
 * parallel up to the limit), each through the routing engine with fallback,
 * then the last step, whose output is the answer (streamed when asked).
 * Every step is recorded as it ends, with a usage record of its own; a failing
 * step, the timeout or the cost cap fails the run with the execution id in the
 * error, and what ran before is kept.
 */
export async function runAgent(runtime: AgentRuntime, request: AgentRunRequest): Promise<AgentRunResult> {
  const { plan, agent } = request;
  const limits = plan.limits;
  const executionId = createId('exe');
  await runtime.executions.start({
    id: executionId,
    ownerId: request.ownerId,
    agentId: agent.id,
    agentName: agent.name,
    agentVersion: agent.version,
    keyId: request.keyId,
    streamed: request.stream,
    input: lastUserText(request.messages),
    startedAt: runtime.now(),
  });

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('agent timeout', 'TimeoutError')), limits.timeoutMs);
  const signal = request.signal === undefined ? timeout.signal : AbortSignal.any([request.signal, timeout.signal]);
  const deadlineAt = request.startedAt + limits.timeoutMs;
  const records: StepRecord[] = [];
  const values: TemplateValues & { steps: Map<string, { output: string; json?: unknown }> } = {
    input: lastUserText(request.messages),
    messages: conversationText(request.messages),
    steps: new Map(),
  };
  const totalCost = () => records.reduce((sum, record) => sum + record.costUsd, 0);
  const checkCost = () => {
    const spent = totalCost();
    if (spent >= limits.maxCostUsd) {
      throw errors.agentCostLimit(`The run has cost ${formatUsd(spent)}, at or above the agent's cap of ${formatUsd(limits.maxCostUsd)}; no further step was started.`);
    }
  };

  const record = (step: PlannedStep, entry: Omit<StepRecord, 'name' | 'position' | 'routerId'>, errorStatus: number | null, account: CallAccount | undefined) => {
    const usage = account?.usage;
    const full: StepRecord = { ...entry, name: step.definition.name, position: step.position, routerId: step.definition.router ?? null };
    records.push(full);
    settleStep(
      {
        id: `${executionId}:${full.name}`,
        createdAt: full.finishedAt,
        ownerId: request.ownerId,
        keyId: request.keyId ?? null,
        routerId: full.routerId,
        model: full.model,
        status: errorStatus ?? 200,
        errorCode: full.errorCode,
        streamed: request.stream && step.definition.name === plan.finalStep,
        promptTokens: full.promptTokens,
        completionTokens: full.completionTokens,
        costUsd: full.costUsd,
        latencyMs: full.latencyMs,
        carbonGrams: full.carbonGrams,
        energyWh: account?.carbon.energyWh ?? 0,
        cachedPromptTokens: usage?.cachedPromptTokens ?? 0,
        cacheWritePromptTokens: usage?.cacheWritePromptTokens ?? 0,
        reasoningTokens: usage?.reasoningTokens ?? 0,
        attempts: full.attempts,
      },
      runtime,
    );
    return runtime.executions.recordStep(executionId, full);
  };

  /** Records a step that failed, and gives the error the run fails with. */
  const stepFailed = async (step: PlannedStep, started: { at: number; perf: number }, error: unknown, spent?: RoutedAnswer): Promise<GatewayError> => {
    // The run's deadline is also each step's fallback deadline: whichever fired first, it is the timeout.
    const timedOut = (timeout.signal.aborted || performance.now() >= deadlineAt) && request.signal?.aborted !== true;
    const failure = timedOut
      ? errors.agentTimeout(`The agent ran longer than its timeout of ${limits.timeoutMs} ms.`)
      : error instanceof GatewayError
        ? error
        : errors.internal(error);
    await record(
      step,
      {
        status: 'failed',
        model: spent?.model.id ?? null,
        attempts: error instanceof RoutingFailure ? error.attempts.filter((attempt) => attempt.outcome !== 'skipped').length : spent?.attempts.length ?? 0,
        promptTokens: spent?.usage.promptTokens ?? 0,
        completionTokens: spent?.usage.completionTokens ?? 0,
        costUsd: spent?.costUsd ?? 0,
        latencyMs: roundTo(performance.now() - started.perf, 2),
        carbonGrams: spent?.carbon.carbonGrams ?? 0,
        output: spent?.result.message.content ?? null,
        errorCode: failure.code,
        errorMessage: failure.message,
        startedAt: started.at,
        finishedAt: runtime.now(),
      },
      failure.status,
      spent,
    );
    return failure;
  };

  const prepare = (step: PlannedStep, chatRequest: ChatRequest): Promise<PreparedRoute> =>
    prepareStep({ ownerId: request.ownerId, keyId: request.keyId, routerId: step.definition.router, model: step.definition.model }, chatRequest, runtime);

  const runStep = async (step: PlannedStep): Promise<RoutedAnswer> => {
    const started = { at: runtime.now(), perf: performance.now() };
    let answer: RoutedAnswer | undefined;
    try {
      // A key or router over its budget stops the run before the step's call (429 insufficient_quota, with the execution id).
      const chatRequest = buildRequest(step, values);
      const route = await prepare(step, chatRequest);
      answer = await callRoute(route, chatRequest, runtime, { startedAt: started.perf, signal, deadlineAt });
      const output = answer.result.message.content ?? (answer.result.message.toolCalls === undefined ? '' : JSON.stringify(answer.result.message.toolCalls));
      const json = wantsJson(step) ? parseJsonOutput(step, output) : undefined;
      values.steps.set(step.definition.name, json === undefined ? { output } : { output, json });
      await record(
        step,
        {
          status: 'succeeded',
          model: answer.model.id,
          attempts: answer.attempts.filter((attempt) => attempt.outcome !== 'skipped').length,
          promptTokens: answer.usage.promptTokens,
          completionTokens: answer.usage.completionTokens,
          costUsd: answer.costUsd,
          latencyMs: roundTo(performance.now() - started.perf, 2),
          carbonGrams: answer.carbon.carbonGrams,
          output,
          errorCode: null,
          errorMessage: null,
          startedAt: started.at,
          finishedAt: runtime.now(),
        },
        null,
        answer,
      );
      return answer;
    } catch (error) {
      throw await stepFailed(step, started, error instanceof TemplateError ? errors.agentStepOutputInvalid(error.message) : error, answer);
    }
  };

  const metaNow = (): AgentMeta => agentMeta(executionId, agent, records, request.startedAt);
  const finishRun = async (failure: GatewayError | undefined, output: string | null) => {
    const meta = metaNow();
    await runtime.executions.finish(executionId, {
      status: failure === undefined ? 'succeeded' : 'failed',
      output,
      errorCode: failure?.code ?? null,
      errorMessage: failure?.message ?? null,
      stepsExecuted: meta.steps_executed,
      totalCostUsd: meta.total_cost,
      totalLatencyMs: meta.total_latency,
      totalCarbonGrams: meta.total_carbon,
      promptTokens: records.reduce((sum, entry) => sum + entry.promptTokens, 0),
      completionTokens: records.reduce((sum, entry) => sum + entry.completionTokens, 0),
      modelsUsed: meta.models_used,
      finishedAt: runtime.now(),
    });
    return meta;
  };
  const failRun = async (error: unknown, step?: string): Promise<never> => {
    clearTimeout(timer);
    const failure = error instanceof GatewayError ? error : errors.internal(error);
    await finishRun(failure, null);
    const where = step === undefined ? '' : ` at step "${step}"`;
    throw new GatewayError(failure.status, failure.type, failure.code, `Agent "${agent.name}" failed${where}: ${failure.message}`, {
      param: failure.param,
      headers: failure.headers,
      cause: failure,
      details: { execution_id: executionId },
    });
  };

  const finalStep = plan.steps.find((step) => step.definition.name === plan.finalStep);
  if (finalStep === undefined) throw new Error('an agent plan always has a final step');
  const before = plan.steps.filter((step) => step !== finalStep).map((step) => ({ ...step, name: step.definition.name }));
  let failedStep: string | undefined;
  try {
    await runSchedule(before, { maxParallel: limits.maxParallel, beforeStart: checkCost }, async (step) => {
      try {
        await runStep(step);
      } catch (error) {
        failedStep ??= step.name;
        throw error;
      }
    });
    checkCost();
  } catch (error) {
    return failRun(error, failedStep);
  }

  if (!request.stream) {
    try {
      const answer = await runStep(finalStep);
      clearTimeout(timer);
      const meta = await finishRun(undefined, values.steps.get(finalStep.definition.name)?.output ?? null);
      return { kind: 'answer', executionId, answer, meta };
    } catch (error) {
      return failRun(error, finalStep.definition.name);
    }
  }

  const started = { at: runtime.now(), perf: performance.now() };
  let chatRequest: ChatRequest;
  let stream: StartedStream;
  try {
    chatRequest = buildRequest(finalStep, values);
    const route = await prepare(finalStep, chatRequest);
    stream = await streamRoute(route, chatRequest, runtime, { startedAt: started.perf, signal, deadlineAt });
  } catch (error) {
    const failure = await stepFailed(finalStep, started, error instanceof TemplateError ? errors.agentStepOutputInvalid(error.message) : error);
    return failRun(failure, finalStep.definition.name);
  }
  // Once the answer streams, only the client ends it: the timeout bounds the run up to the first token.
  clearTimeout(timer);
  return {
    kind: 'stream',
    executionId,
    stream,
    async finish(end) {
      const account = accountStream(stream, chatRequest, { usage: end.usage, generated: end.generatedText });
      await record(
        finalStep,
        {
          status: end.failure === undefined ? 'succeeded' : 'failed',
          model: stream.model.id,
          attempts: stream.attempts.filter((attempt) => attempt.outcome !== 'skipped').length,
          promptTokens: account.usage.promptTokens,
          completionTokens: account.usage.completionTokens,
          costUsd: account.costUsd,
          latencyMs: roundTo(performance.now() - started.perf, 2),
          carbonGrams: account.carbon.carbonGrams,
          output: end.generatedText,
          errorCode: end.failure?.code ?? null,
          errorMessage: end.failure?.message ?? null,
          startedAt: started.at,
          finishedAt: runtime.now(),
        },
        end.failure?.status ?? null,
        account,
      );
      return finishRun(end.failure, end.failure === undefined ? end.generatedText : null);
    },
  };
}

function agentMeta(executionId: string, agent: AgentRecord, records: readonly StepRecord[], startedAt: number): AgentMeta {
  const ordered = [...records].sort((a, b) => a.position - b.position);
  const models: string[] = [];
  for (const entry of ordered) if (entry.model !== null && !models.includes(entry.model)) models.push(entry.model);
  return {
    execution_id: executionId,
    agent_name: agent.name,
    agent_version: agent.version,
    steps_executed: records.length,
    total_cost: ordered.reduce((sum, entry) => sum + entry.costUsd, 0),
    total_latency: roundTo(performance.now() - startedAt, 2),
    total_carbon: ordered.reduce((sum, entry) => sum + entry.carbonGrams, 0),
    models_used: models,
    steps: ordered.map((entry) => ({
      name: entry.name,
      status: entry.status,
      router: entry.routerId,
      model: entry.model,
      cost: entry.costUsd,
      latency: entry.latencyMs,
      carbon: entry.carbonGrams,
      prompt_tokens: entry.promptTokens,
      completion_tokens: entry.completionTokens,
    })),
  };
}
