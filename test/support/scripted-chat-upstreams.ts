import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';
import { startFakeGemini, type FakeGemini } from './fake-gemini.js';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai.js';

/**
 * The OpenAI, Anthropic and Gemini fakes behind one gateway, scripted alike whatever format each speaks (a text answer,
 * a call of one tool, each with its token counts), and what each received reduced to what client tests check: so one
 * client test runs unchanged over a router of each provider.
 */

export type UpstreamName = 'openai' | 'anthropic' | 'gemini';

/** Each fake's model, as a router names it: known before the fakes start, for tests that declare a case per upstream. */
export const CHAT_UPSTREAM_MODELS: Readonly<Record<UpstreamName, string>> = {
  openai: 'openai:gpt-4o-mini',
  anthropic: 'anthropic:claude-3-5-haiku-latest',
  gemini: 'gemini:gemini-2.0-flash',
};

export interface ScriptedUsage {
  readonly input: number;
  readonly output: number;
}

export interface ReceivedToolResult {
  /** The call it answers: its id, or for Gemini (whose calls have none) the function's name. */
  readonly call: string;
  /** The result's content, parsed from JSON where it is a JSON text. */
  readonly content: unknown;
}

export interface ScriptedUpstream {
  readonly name: UpstreamName;
  /** The catalog id a router names, e.g. `openai:gpt-4o-mini`. */
  readonly modelId: string;
  /** The next answer: this text, cut into these pieces where the answer is streamed. */
  answerText(pieces: readonly string[], usage: ScriptedUsage): void;
  /**
   * The next answer: a call of one tool, after `preamble` text when given (as models often say what they are about to
   * do). Gives the call id the client sees where the upstream makes one (not Gemini).
   */
  answerToolCall(name: string, args: Readonly<Record<string, unknown>>, usage: ScriptedUsage, preamble?: string): string | undefined;
  /** Bodies of the chat requests it received, in arrival order. */
  bodies(): readonly Record<string, unknown>[];
  /** The tool results a request body carries, in the upstream's own format, reduced. */
  toolResults(body: Record<string, unknown>): ReceivedToolResult[];
}

export interface ChatFakes {
  readonly openai: FakeOpenAI;
  readonly anthropic: FakeAnthropic;
  readonly gemini: FakeGemini;
  readonly upstreams: readonly ScriptedUpstream[];
  upstream(name: UpstreamName): ScriptedUpstream;
  /** The gateway's environment that points each provider at its fake. */
  readonly env: Readonly<Record<string, string>>;
  reset(): void;
  close(): Promise<void>;
}

const parsed = (content: unknown): unknown => {
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
};

type Blocks = readonly { type: string; tool_use_id?: string; content?: unknown }[];

export async function startChatFakes(): Promise<ChatFakes> {
  const openai = await startFakeOpenAI({ apiKey: 'sk-test' });
  const anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
  const gemini = await startFakeGemini({ apiKey: 'gemini-test-key' });
  let calls = 0;
  const nextId = (prefix: string) => `${prefix}${(calls += 1)}`;
  const upstreams: ScriptedUpstream[] = [
    {
      name: 'openai',
      modelId: CHAT_UPSTREAM_MODELS.openai,
      answerText: (pieces, usage) => openai.enqueue({ type: 'answer', content: pieces.join(''), textPieces: pieces, usage: { prompt_tokens: usage.input, completion_tokens: usage.output } }),
      answerToolCall(name, args, usage, preamble) {
        const id = nextId('call_');
        openai.enqueue({ type: 'answer', content: preamble ?? null, toolCalls: [{ id, name, arguments: JSON.stringify(args) }], usage: { prompt_tokens: usage.input, completion_tokens: usage.output } });
        return id;
      },
      bodies: () => openai.chatRequests().map((request) => request.body as Record<string, unknown>),
      toolResults: (body) =>
        (body.messages as { role: string; tool_call_id?: string; content: unknown }[])
          .filter((message) => message.role === 'tool')
          .map((message) => ({ call: message.tool_call_id ?? '', content: parsed(message.content) })),
    },
    {
      name: 'anthropic',
      modelId: CHAT_UPSTREAM_MODELS.anthropic,
      answerText: (pieces, usage) =>
        anthropic.enqueue({ type: 'answer', content: [{ type: 'text', text: pieces.join(''), pieces }], usage: { input_tokens: usage.input, output_tokens: usage.output } }),
      answerToolCall(name, args, usage, preamble) {
        const id = nextId('toolu_');
        const call = { type: 'tool_use', id, name, input: { ...args }, pieceLength: 3 } as const;
        anthropic.enqueue({ type: 'answer', content: preamble === undefined ? [call] : [{ type: 'text', text: preamble }, call], usage: { input_tokens: usage.input, output_tokens: usage.output } });
        return id;
      },
      bodies: () => anthropic.messageRequests().map((request) => request.body as Record<string, unknown>),
      toolResults: (body) =>
        (body.messages as { content: unknown }[])
          .flatMap((message) => (Array.isArray(message.content) ? (message.content as Blocks) : []))
          .filter((block) => block.type === 'tool_result')
          .map((block) => ({ call: block.tool_use_id ?? '', content: parsed(block.content) })),
    },
    {
      name: 'gemini',
      modelId: CHAT_UPSTREAM_MODELS.gemini,
      answerText: (pieces, usage) =>
        gemini.enqueue({ type: 'answer', parts: pieces.map((text) => ({ text })), usage: { promptTokenCount: usage.input, candidatesTokenCount: usage.output } }),
      answerToolCall(name, args, usage, preamble) {
        const call = { functionCall: { name, args: { ...args } } };
        gemini.enqueue({ type: 'answer', parts: preamble === undefined ? [call] : [{ text: preamble }, call], usage: { promptTokenCount: usage.input, candidatesTokenCount: usage.output } });
        return undefined;
      },
      bodies: () => gemini.requests.filter((request) => /generateContent$/i.test(request.path)).map((request) => request.body as Record<string, unknown>),
      toolResults: (body) =>
        (body.contents as { parts: { functionResponse?: { name: string; response: unknown } }[] }[])
          .flatMap((content) => content.parts)
          .flatMap((part) => (part.functionResponse === undefined ? [] : [{ call: part.functionResponse.name, content: part.functionResponse.response }])),
    },
  ];
  return {
    openai,
    anthropic,
    gemini,
    upstreams,
    upstream(name) {
      const found = upstreams.find((candidate) => candidate.name === name);
      if (found === undefined) throw new Error(`no fake upstream named ${name}`);
      return found;
    },
    env: {
      OPENAI_BASE_URL: openai.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: anthropic.baseUrl,
      ANTHROPIC_API_KEY: 'sk-ant-test',
      GEMINI_BASE_URL: gemini.baseUrl,
      GEMINI_API_KEY: 'gemini-test-key',
    },
    reset() {
      openai.reset();
      anthropic.reset();
      gemini.reset();
    },
    async close() {
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}
