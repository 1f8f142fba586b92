import { errors } from '../lib/errors.js';
import type { ChatMessage, ChatRequest, ToolDefinition } from '../providers/contract.js';
import { toolCallText } from '../pipeline/route-and-call.js';
import type { PlannedStep } from './agent-definition.js';
import { renderTemplate, type TemplateValues } from './agent-template.js';

/** What a step sends and reads: its chat request from the run's values, its JSON output, and the run's inputs. */

/** The step's own chat request: its system text and rendered prompt, its sampling and output settings. */
export function buildRequest(step: PlannedStep, values: TemplateValues): ChatRequest {
  const definition = step.definition;
  const messages: ChatMessage[] = [];
  if (step.system !== undefined) messages.push({ role: 'system', content: renderTemplate(step.system, values) });
  messages.push({ role: 'user', content: renderTemplate(step.prompt, values) });
  return {
    messages,
    ...(definition.temperature !== undefined ? { temperature: definition.temperature } : {}),
    ...(definition.max_tokens !== undefined ? { max_tokens: definition.max_tokens } : {}),
    ...(definition.tools !== undefined ? { tools: definition.tools as unknown as readonly ToolDefinition[] } : {}),
    ...(definition.response_format !== undefined ? { response_format: definition.response_format } : {}),
  };
}

export function wantsJson(step: PlannedStep): boolean {
  const type = step.definition.response_format?.type;
  return type === 'json_object' || type === 'json_schema';
}

/** JSON output, tolerating the ```json fences some models add. */
export function parseJsonOutput(step: PlannedStep, output: string): unknown {
  const text = output.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw errors.agentStepOutputInvalid(`step "${step.definition.name}" asked for JSON output but the model answered with text that is not JSON`);
  }
}

function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return message.tool_calls === undefined ? '' : toolCallText(message.tool_calls);
  return content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
}

/** `{{input}}`: the last user message. */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role === 'user') return messageText(message);
  }
  return '';
}

/** `{{messages}}`: one `role: content` line per message. */
export function conversationText(messages: readonly ChatMessage[]): string {
  return messages.map((message) => `${message.role}: ${messageText(message)}`).join('\n');
}
