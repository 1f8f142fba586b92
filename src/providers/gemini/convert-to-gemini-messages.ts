import type { ChatMessage, ContentPart } from '../contract.js';
import type { GeminiContent, GeminiPart } from './gemini-api.js';
import { invalidGeminiRequest, unsupportedByGemini } from './gemini-errors.js';

export interface ConvertOptions {
  readonly provider: string;
  /**
   * Put Google's documented placeholder signature on replayed function calls.
   * Gemini 3 rejects a history whose model turns call functions without the
   * thoughtSignature it gave them, and OpenAI-shaped clients cannot keep it.
   * https://ai.google.dev/gemini-api/docs/thought-signatures
   */
  readonly placeholderThoughtSignatures: boolean;
}

export interface GeminiPrompt {
  readonly contents: GeminiContent[];
  readonly systemInstruction?: { readonly parts: { readonly text: string }[] };
}

const PLACEHOLDER_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/**
 * OpenAI chat messages onto Gemini's `contents` and `systemInstruction`:
 * - system and developer messages, wherever they are, become systemInstruction parts;
 * - assistant turns are role "model", with their tool calls as functionCall parts;
 * - tool messages are functionResponse parts in a "user" turn, named after the
 *   call they answer (Gemini matches responses to calls by name and order);
 * - consecutive turns of one role are merged, so parallel calls get their
 *   responses in one turn, as Gemini expects.
 */
export function convertToGeminiMessages(messages: readonly ChatMessage[], options: ConvertOptions): GeminiPrompt {
  const contents: GeminiContent[] = [];
  const systemParts: { text: string }[] = [];
  const toolNames = new Map<string, string>();

  const append = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content);
        if (text !== '') systemParts.push({ text });
        return;
      }
      case 'user':
        append('user', userParts(message.content, index, options.provider));
        return;
      case 'assistant': {
        const parts: GeminiPart[] = [];
        const text = textOf(message.content);
        if (text !== '') parts.push({ text });
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          toolNames.set(call.id, call.function.name);
          const args = parseArguments(call.function.arguments, index, options.provider);
          const signature = options.placeholderThoughtSignatures && callIndex === 0 ? { thoughtSignature: PLACEHOLDER_THOUGHT_SIGNATURE } : {};
          parts.push({ functionCall: { name: call.function.name, args }, ...signature });
        });
        append('model', parts);
        return;
      }
      case 'tool': {
        const name = (message.tool_call_id === undefined ? undefined : toolNames.get(message.tool_call_id)) ?? message.name;
        if (name === undefined) {
          throw invalidGeminiRequest(options.provider, `messages[${index}]: tool_call_id ${JSON.stringify(message.tool_call_id ?? null)} answers no earlier tool call`);
        }
        append('user', [{ functionResponse: { name, response: toolResponse(textOf(message.content)) } }]);
        return;
      }
    }
  });

  return { contents, ...(systemParts.length > 0 ? { systemInstruction: { parts: systemParts } } : {}) };
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  return content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

function userParts(content: ChatMessage['content'], index: number, provider: string): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  if (content === null || content === undefined) return [];
  return content.map((part) => userPart(part, index, provider));
}

function userPart(part: ContentPart, index: number, provider: string): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: typeof part.text === 'string' ? part.text : '' };
    case 'image_url': {
      const imageUrl = part.image_url;
      const url = typeof imageUrl === 'string' ? imageUrl : field(imageUrl, 'url');
      if (url === undefined) throw invalidGeminiRequest(provider, `messages[${index}]: image_url part without a url`);
      return urlPart(url, index, provider);
    }
    case 'input_audio': {
      const data = field(part.input_audio, 'data');
      const format = field(part.input_audio, 'format');
      if (data === undefined || format === undefined) throw invalidGeminiRequest(provider, `messages[${index}]: input_audio part without data and format`);
      return { inlineData: { mimeType: `audio/${format}`, data } };
    }
    case 'file': {
      const fileData = field(part.file, 'file_data');
      if (fileData !== undefined) return urlPart(fileData, index, provider);
      throw unsupportedByGemini(provider, `messages[${index}]: file parts need file_data (a data: URL); ${provider} cannot read OpenAI file ids`);
    }
    default:
      throw unsupportedByGemini(provider, `messages[${index}]: ${provider} cannot take content parts of type ${JSON.stringify(part.type)}`);
  }
}

/**
 * A data: URL travels inline; any other URL as fileData, which Gemini fetches
 * itself (public http(s) URLs, Files API URIs, YouTube). The MIME type of a
 * remote file is guessed from its extension and otherwise left out: it is
 * optional in fileData, and a wrong guess is worse than none.
 */
function urlPart(url: string, index: number, provider: string): GeminiPart {
  if (url.startsWith('data:')) {
    const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
    if (match === null) throw invalidGeminiRequest(provider, `messages[${index}]: malformed data: URL`);
    const [, mimeType = '', parameters = '', payload = ''] = match;
    const data = parameters.split(';').includes('base64') ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
    return { inlineData: { mimeType: mimeType === '' ? 'text/plain' : mimeType, data } };
  }
  const mimeType = guessMimeType(url);
  return { fileData: { ...(mimeType === undefined ? {} : { mimeType }), fileUri: url } };
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  mp4: 'video/mp4',
};

function guessMimeType(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : MIME_TYPES[extension];
}

function parseArguments(text: string, index: number, provider: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isPlainObject(parsed)) {
    throw invalidGeminiRequest(provider, `messages[${index}]: tool call arguments must be a JSON object, got ${JSON.stringify(text.slice(0, 80))}`);
  }
  return parsed;
}

/** functionResponse.response is a Struct: a JSON object stays as is, anything else is wrapped. */
function toolResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // Plain text.
  }
  return { content: text };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, key: string): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const found = value[key];
  return typeof found === 'string' ? found : undefined;
}
