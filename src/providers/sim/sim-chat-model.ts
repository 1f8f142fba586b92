import { createHash } from 'node:crypto';
import { abortableDelay, type ClientSignal } from '../../lib/client-abort.js';
import { countPromptTokens, countTextTokens, messageText } from '../token-counter.js';
import {
  UpstreamError,
  type CallOptions,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type StreamPart,
  type ToolCall,
  type ToolDefinition,
} from '../contract.js';

/**
 * The offline simulator: a provider named `sim` that needs no network and no key,
 * so the quick start answers on a fresh machine. It is NOT a language model:
 * it answers deterministically (same prompt, same answer), counts tokens with
 * a real tokenizer and paces its output like a hosted model would.
 */
export interface SimSettings {
  /** Multiplies every simulated delay; 0 answers at once (tests, benchmarks). @default 1 */
  readonly timeScale: number;
  /** Simulated time to first token and throughput per model, from the catalog. */
  readonly timing: (modelId: string) => { ttftMs: number; tokensPerSecond: number };
}

const WORDS = (
  'routing gateway model latency cost carbon token stream answer request provider fallback strategy quality budget ' +
  'router agent usage prompt context response measure simulate deterministic offline example quick start'
).split(' ');

export function createSimChatModel(settings: SimSettings, modelId: string): ChatModel {
  const plan = (request: ChatRequest) => planAnswer(modelId, request);
  const timing = settings.timing(modelId);
  const delay = async (ms: number, signal: ClientSignal) => {
    const scaled = ms * settings.timeScale;
    if (scaled >= 1) await abortableDelay(scaled, signal);
  };

  return {
    provider: 'sim',
    modelId,
    async generate(request, options: CallOptions): Promise<ChatResult> {
      const answer = plan(request);
      try {
        await delay(timing.ttftMs + (answer.completionTokens / timing.tokensPerSecond) * 1000, options.signal);
      } catch (error) {
        throw aborted(error);
      }
      return {
        message: { content: answer.text, ...(answer.toolCalls ? { toolCalls: answer.toolCalls } : {}) },
        finishReason: answer.finishReason,
        usage: { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens, estimated: false },
      };
    },
    async stream(request, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      const answer = plan(request);
      return (async function* (): AsyncGenerator<StreamPart> {
        try {
          await delay(timing.ttftMs, options.signal);
          if (answer.toolCalls) {
            for (const [index, call] of answer.toolCalls.entries()) {
              yield { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: '' };
              yield { type: 'tool-call-delta', index, argumentsDelta: call.function.arguments };
            }
          } else {
            const pieces = answer.text?.match(/\S+\s*/g) ?? [];
            const perPiece = 1000 / timing.tokensPerSecond;
            for (const piece of pieces) {
              yield { type: 'text-delta', text: piece };
              await delay(perPiece, options.signal);
            }
          }
        } catch (error) {
          throw aborted(error);
        }
        yield { type: 'finish', finishReason: answer.finishReason };
        yield {
          type: 'usage',
          usage: { promptTokens: answer.promptTokens, completionTokens: answer.completionTokens, estimated: false },
        };
      })();
    },
  };
}

interface PlannedAnswer {
  readonly text: string | null;
  readonly toolCalls?: ToolCall[];
  readonly finishReason: 'stop' | 'length' | 'tool_calls';
  readonly promptTokens: number;
  readonly completionTokens: number;
}

function planAnswer(modelId: string, request: ChatRequest): PlannedAnswer {
  const promptTokens = countPromptTokens(request);
  const last = request.messages.at(-1);
  const seed = createHash('sha256').update(modelId).update(JSON.stringify(request.messages)).digest();
  const tool = pickTool(request);
  if (tool !== undefined && last?.role !== 'tool') {
    const args = JSON.stringify(sampleArguments(tool.function.parameters));
    const toolCalls: ToolCall[] = [
      { id: `call_sim${seed.toString('hex').slice(0, 20)}`, type: 'function', function: { name: tool.function.name, arguments: args } },
    ];
    return { text: null, toolCalls, finishReason: 'tool_calls', promptTokens, completionTokens: countTextTokens(tool.function.name + args) + 3 };
  }
  const question = (last ? messageText(last) : '').replace(/\s+/g, ' ').trim().slice(0, 80);
  let text = `Simulated answer from sim:${modelId} (ModelPort's offline simulator, not a real model). You said: "${question}".`;
  const targetTokens = 24 + (seed.readUInt16BE(0) % 72);
  for (let i = 2; countTextTokens(text) < targetTokens; i += 1) text += ` ${WORDS[(seed[i % seed.length] ?? 0) % WORDS.length]}`;
  text += '.';
  const limit = request.max_completion_tokens ?? request.max_tokens;
  let completionTokens = countTextTokens(text);
  let finishReason: PlannedAnswer['finishReason'] = 'stop';
  if (limit !== undefined && completionTokens > limit) {
    const words = text.split(' ');
    while (words.length > 1 && countTextTokens(words.join(' ')) > limit) words.pop();
    text = words.join(' ');
    completionTokens = countTextTokens(text);
    finishReason = 'length';
  }
  return { text, finishReason, promptTokens, completionTokens };
}

function pickTool(request: ChatRequest): ToolDefinition | undefined {
  const tools = request.tools;
  if (!tools || tools.length === 0 || request.tool_choice === 'none') return undefined;
  const choice = request.tool_choice as { function?: { name?: string } } | undefined;
  const named = typeof choice === 'object' && choice !== null ? choice.function?.name : undefined;
  return (named ? tools.find((tool) => tool.function.name === named) : undefined) ?? tools[0];
}

/** Arguments that satisfy the required properties of a JSON schema, by type. */
function sampleArguments(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const properties = (schema?.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : Object.keys(properties);
  const out: Record<string, unknown> = {};
  for (const name of required) {
    const property = properties[name] ?? {};
    if (property.enum && property.enum.length > 0) out[name] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') out[name] = 1;
    else if (property.type === 'boolean') out[name] = true;
    else if (property.type === 'array') out[name] = [];
    else if (property.type === 'object') out[name] = {};
    else out[name] = 'sim';
  }
  return out;
}

function aborted(error: unknown): UpstreamError {
  return new UpstreamError({ provider: 'sim', kind: 'aborted', isRetryable: false, message: 'The client went away.', cause: error });
}
