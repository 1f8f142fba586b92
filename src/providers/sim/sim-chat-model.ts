import { abortableDelay, type ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type CallOptions, type ChatModel, type ChatRequest, type ChatResult, type StreamPart } from '../contract.js';
import { planAnswer, type PlannedAnswer } from './sim-answer.js';

/**
 * The offline simulator: a provider named `sim` that needs no network and no key,
 * so the quick start answers on a fresh machine. It is NOT a language model:
 * it answers deterministically (same prompt, same answer), counts tokens with
 * a real tokenizer and paces its output like a hosted model would. It honours
 * `response_format` (JSON that fits the schema), tools and `tool_choice`, and
 * `max_tokens` (sim-answer.ts), so clients' structured-output code runs against it.
 */
export interface SimSettings {
  /** Multiplies every simulated delay; 0 answers at once (tests, benchmarks). @default 1 */
  readonly timeScale: number;
  /** Simulated time to first token and throughput per model, from the catalog. */
  readonly timing: (modelId: string) => { ttftMs: number; tokensPerSecond: number };
}

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
          // Paced so the whole answer takes as long as generate() waits after the first token.
          const pieces = streamPieces(answer);
          const perPiece = pieces.length === 0 ? 0 : (answer.completionTokens / pieces.length / timing.tokensPerSecond) * 1000;
          for (const piece of pieces) {
            yield piece;
            await delay(perPiece, options.signal);
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

/** Text word by word; JSON text and tool-call arguments in short pieces, as hosted models stream them. */
function streamPieces(answer: PlannedAnswer): StreamPart[] {
  if (answer.toolCalls) {
    return answer.toolCalls.flatMap((call, index): StreamPart[] => [
      { type: 'tool-call-delta', index, id: call.id, name: call.function.name, argumentsDelta: '' },
      ...jsonPieces(call.function.arguments).map((piece): StreamPart => ({ type: 'tool-call-delta', index, argumentsDelta: piece })),
    ]);
  }
  const text = answer.text ?? '';
  const pieces = answer.json ? jsonPieces(text) : (text.match(/\S+\s*/g) ?? []);
  return pieces.map((piece): StreamPart => ({ type: 'text-delta', text: piece }));
}

const JSON_PIECE_CHARACTERS = 8;

function jsonPieces(text: string): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += JSON_PIECE_CHARACTERS) pieces.push(characters.slice(start, start + JSON_PIECE_CHARACTERS).join(''));
  return pieces;
}

function aborted(error: unknown): UpstreamError {
  return new UpstreamError({ provider: 'sim', kind: 'aborted', isRetryable: false, message: 'The client went away.', cause: error });
}
