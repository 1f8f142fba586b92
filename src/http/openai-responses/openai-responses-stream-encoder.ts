import type { ModelInfo } from '../../catalog/catalog.js';
import type { StreamPart } from '../../providers/contract.js';
import type { AnswerIds, StreamEncoder } from '../surface-adapter.js';
import type { ResponsesTool } from './convert-responses-tools.js';
import type { DecodedResponsesRequest, ResponsesContext } from './decoded-responses-request.js';
import {
  customInput,
  finishStatus,
  keepResponse,
  messageItem,
  outputItemId,
  outputTextPart,
  responseObject,
  toolCallItem,
  type ResponseState,
} from './encode-openai-responses-response.js';
import { responseError } from './openai-responses-errors.js';
import type { ResponseItem } from './openai-responses-request-schema.js';
import type { StoreOutcome } from './response-store.js';

/** An SSE event as OpenAI frames the Responses API's: its type in `event:` and first in the data, then its number. */
function event(type: string, sequence: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...fields })}\n\n`;
}

type ItemStatus = 'completed' | 'incomplete';

interface OpenMessage {
  readonly outputIndex: number;
  readonly id: string;
  /** Finished content parts. */
  readonly parts: Record<string, unknown>[];
  /** The part being streamed. */
  current: { readonly kind: 'text' | 'refusal'; text: string } | undefined;
  /** The text delta event of this item's current part, built once (the hot path): give it the sequence number and the text. */
  textDelta: ((sequence: number, text: string) => string) | undefined;
}

interface OpenCall {
  readonly outputIndex: number;
  readonly id: string;
  readonly callId: string;
  /** The name the model called (a chat tool name). */
  readonly chatName: string;
  readonly tool: ResponsesTool | undefined;
  args: string;
  done: boolean;
}

/**
 * The gateway's stream parts → the Responses API's semantic events
 * (https://platform.openai.com/docs/api-reference/responses-streaming), in OpenAI's order, numbered from 0:
 * `response.created`, `response.in_progress`; per output item `response.output_item.added`, its content
 * (`response.content_part.added`, `response.output_text.delta`… `.done`, `response.content_part.done`; or
 * `response.function_call_arguments.delta`… `.done`) and `response.output_item.done`; then `response.completed` (or
 * `response.incomplete`) whose response carries `usage` and `_meta`, once the response is stored. A stream that
 * breaks ends with `response.failed` carrying the error. A custom tool's input is sent whole when its call ends (the
 * model gives it inside JSON, which is not cut where the text is).
 */
export function createOpenAIResponsesStreamEncoder<M>(
  ids: AnswerIds,
  model: ModelInfo,
  request: DecodedResponsesRequest,
  context: ResponsesContext,
  onStored?: (outcome: StoreOutcome) => void,
): StreamEncoder<M> {
  const head = { id: ids.id, createdAt: ids.created, model: model.id };
  let sequence = 0;
  /** Output items by index; undefined while one is open. */
  const output: (ResponseItem | undefined)[] = [];
  let message: OpenMessage | undefined;
  /** Calls by the part's tool-call index. */
  const calls = new Map<number, OpenCall>();
  let openCall: OpenCall | undefined;

  const next = (type: string, fields: Record<string, unknown>) => event(type, sequence++, fields);
  const callItem = (call: OpenCall, status: ItemStatus | 'in_progress') =>
    toolCallItem(call.id, { id: call.callId, type: 'function', function: { name: call.chatName, arguments: call.args } }, request.toolNames, status);
  const snapshot = (state: ResponseState, meta?: unknown) => responseObject(head, request.echo, state, meta);

  const closePart = (open: OpenMessage, events: string[]) => {
    const current = open.current;
    if (current === undefined) return;
    const where = { item_id: open.id, output_index: open.outputIndex, content_index: open.parts.length };
    const part = current.kind === 'text' ? outputTextPart(current.text) : { type: 'refusal', refusal: current.text };
    if (current.kind === 'text') events.push(next('response.output_text.done', { ...where, text: current.text, logprobs: [] }));
    else events.push(next('response.refusal.done', { ...where, refusal: current.text }));
    events.push(next('response.content_part.done', { ...where, part }));
    open.parts.push(part);
    open.current = undefined;
    open.textDelta = undefined;
  };

  const closeMessage = (status: ItemStatus, events: string[]) => {
    const open = message;
    if (open === undefined) return;
    closePart(open, events);
    const item = messageItem(open.id, open.parts, status);
    output[open.outputIndex] = item;
    events.push(next('response.output_item.done', { output_index: open.outputIndex, item }));
    message = undefined;
  };

  const closeCall = (status: ItemStatus, events: string[]) => {
    const call = openCall;
    if (call === undefined) return;
    const where = { item_id: call.id, output_index: call.outputIndex };
    const item = callItem(call, status);
    if (call.tool?.kind === 'custom') {
      const input = customInput(call.args);
      if (input !== '') events.push(next('response.custom_tool_call_input.delta', { ...where, delta: input }));
      events.push(next('response.custom_tool_call_input.done', { ...where, input }));
    } else {
      events.push(next('response.function_call_arguments.done', { ...where, name: item.name, arguments: call.args }));
    }
    output[call.outputIndex] = item;
    events.push(next('response.output_item.done', { output_index: call.outputIndex, item }));
    call.done = true;
    openCall = undefined;
  };

  const openMessage = (events: string[]): OpenMessage => {
    closeCall('completed', events);
    const outputIndex = output.length;
    output.push(undefined);
    const open: OpenMessage = { outputIndex, id: outputItemId('msg_', ids.id, outputIndex), parts: [], current: undefined, textDelta: undefined };
    events.push(next('response.output_item.added', { output_index: outputIndex, item: messageItem(open.id, [], 'in_progress') }));
    message = open;
    return open;
  };

  const textLike = (kind: 'text' | 'refusal', text: string): string[] => {
    if (text === '') return [];
    const events: string[] = [];
    const open = message ?? openMessage(events);
    if (open.current !== undefined && open.current.kind !== kind) closePart(open, events);
    if (open.current === undefined) {
      const where = { item_id: open.id, output_index: open.outputIndex, content_index: open.parts.length };
      events.push(next('response.content_part.added', { ...where, part: kind === 'text' ? outputTextPart('') : { type: 'refusal', refusal: '' } }));
      open.current = { kind, text: '' };
      if (kind === 'text') open.textDelta = textDeltaTemplate(where);
    }
    open.current.text += text;
    if (open.textDelta !== undefined) events.push(open.textDelta(sequence++, text));
    else events.push(next('response.refusal.delta', { item_id: open.id, output_index: open.outputIndex, content_index: open.parts.length, delta: text }));
    return events;
  };

  const toolDelta = (part: Extract<StreamPart, { type: 'tool-call-delta' }>): string[] => {
    const events: string[] = [];
    let call = calls.get(part.index);
    if (call === undefined) {
      closeMessage('completed', events);
      closeCall('completed', events);
      const outputIndex = output.length;
      output.push(undefined);
      const chatName = part.name ?? '';
      const tool = request.toolNames.get(chatName);
      const custom = tool?.kind === 'custom';
      call = {
        outputIndex,
        id: outputItemId(custom ? 'ctc_' : 'fc_', ids.id, outputIndex),
        callId: part.id ?? outputItemId('call_', ids.id, outputIndex),
        chatName,
        tool,
        args: '',
        done: false,
      };
      calls.set(part.index, call);
      openCall = call;
      const item = callItem(call, 'in_progress');
      events.push(next('response.output_item.added', { output_index: outputIndex, item }));
    }
    if (part.argumentsDelta === '') return events;
    call.args += part.argumentsDelta;
    // A call that interleaves after another one ended still gets its delta; its whole arguments are in the final response.
    if (call.tool?.kind !== 'custom') events.push(next('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta: part.argumentsDelta }));
    if (call.done) output[call.outputIndex] = callItem(call, 'completed');
    return events;
  };

  /** The items so far, the open ones as they stand (a broken stream's response shows what came). */
  const partialOutput = (): ResponseItem[] =>
    output.map((item, index) => {
      if (item !== undefined) return item;
      if (message?.outputIndex === index) {
        const parts = message.current === undefined ? message.parts : [...message.parts, message.current.kind === 'text' ? outputTextPart(message.current.text) : { type: 'refusal', refusal: message.current.text }];
        return messageItem(message.id, parts, 'incomplete');
      }
      const call = openCall !== undefined && openCall.outputIndex === index ? openCall : undefined;
      return call === undefined ? {} : callItem(call, 'incomplete');
    });

  return {
    start: () => {
      const response = snapshot({ status: 'in_progress', output: [], usage: undefined });
      return [next('response.created', { response }), next('response.in_progress', { response })];
    },
    part(part) {
      switch (part.type) {
        case 'text-delta':
          return textLike('text', part.text);
        case 'refusal-delta':
          return textLike('refusal', part.text);
        case 'tool-call-delta':
          return toolDelta(part);
        case 'finish':
        case 'usage':
          return [];
      }
    },
    async end({ finishReason, usage, meta }) {
      const finish = finishStatus(finishReason);
      const itemStatus: ItemStatus = finish.status === 'completed' ? 'completed' : 'incomplete';
      const events: string[] = [];
      closeMessage(itemStatus, events);
      closeCall(itemStatus, events);
      const completedAt = finish.status === 'completed' ? Math.max(ids.created, Math.floor(context.now() / 1000)) : undefined;
      const response = snapshot({ ...finish, output: partialOutput(), usage, ...(completedAt === undefined ? {} : { completedAt }) }, meta);
      const kept = await keepResponse(response, request, context);
      onStored?.(kept.outcome);
      events.push(next(finish.status === 'completed' ? 'response.completed' : 'response.incomplete', { response: kept.response }));
      return events;
    },
    fail: (failure, meta) => [next('response.failed', { response: snapshot({ status: 'failed', output: partialOutput(), usage: undefined, error: responseError(failure) }, meta) })],
  };
}

/**
 * The `response.output_text.delta` event of one content part, the most frequent event by far: `event()`'s bytes
 * exactly, from pieces built once per part instead of an object serialised per delta.
 */
export function textDeltaTemplate(where: { item_id: string; output_index: number; content_index: number }): (sequence: number, text: string) => string {
  const type = 'response.output_text.delta';
  const marker = '\u0000';
  const whole = event(type, 0, { ...where, delta: marker, logprobs: [] });
  const numberAt = whole.indexOf('"sequence_number":0') + '"sequence_number":'.length;
  const textAt = whole.indexOf(JSON.stringify(marker));
  const head = whole.slice(0, numberAt);
  const middle = whole.slice(numberAt + 1, textAt);
  const tail = whole.slice(textAt + JSON.stringify(marker).length);
  return (sequence, text) => head + sequence + middle + JSON.stringify(text) + tail;
}
