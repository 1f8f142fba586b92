import { errors } from '../../lib/errors.js';
import type { ToolDefinition } from '../../providers/contract.js';

/**
 * The Responses API's `tools` and `tool_choice` → the neutral request's function tools (OpenAI chat's shape), which
 * every provider takes. Tools the client runs itself translate: `function` (flat shape), the functions of a
 * `namespace`, and `custom` (free-form input, given to the model as a function of one string, `input`). Tools OpenAI
 * runs on its own servers cannot run behind a router, whichever provider it picks: each, and any tool choice that
 * forces one, is a 400 naming it, never dropped (docs/api.md, Responses; docs/decisions.md). Web search, which Codex
 * CLI offers by default, gets a message that says how to turn it off there.
 */

/** What a chat tool name stands for on the Responses side. */
export interface ResponsesTool {
  readonly kind: 'function' | 'custom';
  readonly name: string;
  readonly namespace?: string;
}

/** Chat tool name → the Responses tool it stands for. */
export type ToolNames = ReadonlyMap<string, ResponsesTool>;

export interface ConvertedTools {
  /** undefined: no tool reaches the model. */
  readonly tools: readonly ToolDefinition[] | undefined;
  /** The chat `tool_choice`; undefined when not set or when there are no tools. */
  readonly toolChoice: unknown;
  readonly names: ToolNames;
}

const WEB_SEARCH_TYPES: ReadonlySet<string> = new Set(['web_search', 'web_search_preview', 'web_search_preview_2025_03_11', 'web_search_2025_08_26']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Between a namespace and its function's name in the name the model sees (OpenAI's chat names allow no dot). */
const NAMESPACE_SEPARATOR = '__';

type WireTool = Readonly<Record<string, unknown>>;

export function convertResponsesTools(tools: readonly WireTool[] | null | undefined, choice: unknown): ConvertedTools {
  const names = new Map<string, ResponsesTool>();
  const definitions: ToolDefinition[] = [];
  const add = (definition: ToolDefinition, tool: ResponsesTool, path: string) => {
    const chatName = definition.function.name;
    if (names.has(chatName)) throw errors.invalidRequest(`${path}: there is already a tool named "${chatName}".`, `${path}.name`, 'invalid_value');
    names.set(chatName, tool);
    definitions.push(definition);
  };
  (tools ?? []).forEach((tool, index) => {
    const path = `tools[${index}]`;
    const type = String(tool.type);
    if (type === 'function') add(functionDefinition(tool, undefined, path), { kind: 'function', name: String(tool.name) }, path);
    else if (type === 'custom') add(customDefinition(tool, undefined, path), { kind: 'custom', name: String(tool.name) }, path);
    else if (type === 'namespace') {
      const namespace = requireName(tool, path);
      const inner = Array.isArray(tool.tools) ? (tool.tools as WireTool[]) : [];
      inner.forEach((member, position) => {
        const memberPath = `${path}.tools[${position}]`;
        const name = String(member.name);
        if (member.type === 'function') add(functionDefinition(member, namespace, memberPath), { kind: 'function', name, namespace }, memberPath);
        else if (member.type === 'custom') add(customDefinition(member, namespace, memberPath), { kind: 'custom', name, namespace }, memberPath);
        else throw unsupportedTool(String(member.type), `${memberPath}.type`);
      });
    } else throw unsupportedTool(type, `${path}.type`);
  });
  return convertToolChoice(choice, definitions, names);
}

function requireName(tool: WireTool, path: string): string {
  const name = tool.name;
  if (typeof name !== 'string' || name === '') throw errors.invalidRequest(`Missing required parameter: '${path}.name'.`, `${path}.name`, 'missing_required_parameter');
  return name;
}

function chatName(name: string, namespace: string | undefined, path: string): string {
  const full = namespace === undefined ? name : `${namespace}${NAMESPACE_SEPARATOR}${name}`;
  if (!TOOL_NAME.test(full)) {
    throw errors.invalidRequest(
      `${path}.name: tool names match ^[a-zA-Z0-9_-]{1,64}$${namespace === undefined ? '' : ` (with the namespace, "${full}")`}.`,
      `${path}.name`,
      'invalid_value',
    );
  }
  return full;
}

function describe(description: unknown, extra = ''): { description?: string } {
  const text = (typeof description === 'string' ? description : '') + extra;
  return text === '' ? {} : { description: text };
}

function functionDefinition(tool: WireTool, namespace: string | undefined, path: string): ToolDefinition {
  const name = chatName(requireName(tool, path), namespace, path);
  const parameters = tool.parameters;
  if (parameters !== undefined && parameters !== null && (typeof parameters !== 'object' || Array.isArray(parameters))) {
    throw errors.invalidRequest(`${path}.parameters must be a JSON schema object.`, `${path}.parameters`, 'invalid_type');
  }
  return {
    type: 'function',
    function: {
      name,
      ...describe(tool.description),
      ...(parameters !== undefined && parameters !== null ? { parameters: parameters as Record<string, unknown> } : {}),
      // Only a strictness the client chose reaches the provider: a schema written for lax mode fails strict checks.
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    },
  };
}

/** A custom tool's free-form input as the one string argument of a function; its grammar, if any, in the description. */
function customDefinition(tool: WireTool, namespace: string | undefined, path: string): ToolDefinition {
  const name = chatName(requireName(tool, path), namespace, path);
  const format = tool.format as { type?: unknown; syntax?: unknown; definition?: unknown } | null | undefined;
  const grammar = format?.type === 'grammar' && typeof format.definition === 'string' ? `\n\nThe input follows this ${String(format.syntax ?? '')} grammar:\n${format.definition}` : '';
  return {
    type: 'function',
    function: {
      name,
      ...describe(tool.description, grammar),
      parameters: { type: 'object', properties: { input: { type: 'string', description: 'The tool input, as free-form text.' } }, required: ['input'], additionalProperties: false },
    },
  };
}

function unsupportedTool(type: string, param: string) {
  const codex = WEB_SEARCH_TYPES.has(type) ? ' Codex CLI sends it unless web_search = "disabled" is set in its config.toml.' : '';
  return errors.invalidRequest(
    `Tools of type '${type}' are not supported: they run on OpenAI's servers, and the router may choose a model of any provider. Define function tools (or custom tools), which your application runs.${codex}`,
    param,
    'unsupported_value',
  );
}

function findTool(names: ToolNames, kind: 'function' | 'custom', name: string): string | undefined {
  for (const [chat, tool] of names) if (tool.kind === kind && tool.name === name && tool.namespace === undefined) return chat;
  for (const [chat, tool] of names) if (tool.kind === kind && (tool.name === name || chat === name)) return chat;
  return undefined;
}

function convertToolChoice(choice: unknown, definitions: readonly ToolDefinition[], names: ToolNames): ConvertedTools {
  const withTools = (tools: readonly ToolDefinition[], toolChoice: unknown): ConvertedTools => {
    if (tools.length > 0) return { tools, toolChoice, names };
    // Without tools a choice means nothing (OpenAI refuses one), unless it demands a call, which nothing could make.
    if (toolChoice === 'required') throw errors.invalidRequest("tool_choice is 'required' but no tool the model can call was given.", 'tool_choice', 'invalid_value');
    return { tools: undefined, toolChoice: undefined, names };
  };
  if (choice === undefined || choice === null) return withTools(definitions, undefined);
  if (typeof choice === 'string') {
    if (choice === 'auto' || choice === 'none' || choice === 'required') return withTools(definitions, choice);
    throw errors.invalidRequest(`Invalid value for 'tool_choice': must be "auto", "none", "required" or an object; got ${JSON.stringify(choice)}.`, 'tool_choice', 'invalid_value');
  }
  const object = choice as { type?: unknown; name?: unknown; mode?: unknown; tools?: unknown };
  if (object.type === 'function' || object.type === 'custom') {
    const chat = typeof object.name === 'string' ? findTool(names, object.type, object.name) : undefined;
    if (chat === undefined) throw errors.invalidRequest(`tool_choice.name: no ${String(object.type)} tool is named ${JSON.stringify(object.name)}.`, 'tool_choice.name', 'invalid_value');
    return withTools(definitions, { type: 'function', function: { name: chat } });
  }
  if (object.type === 'allowed_tools') {
    const mode = object.mode === 'required' ? 'required' : 'auto';
    const allowed = new Set<string>();
    (Array.isArray(object.tools) ? (object.tools as { type?: unknown; name?: unknown }[]) : []).forEach((entry, index) => {
      const chat = (entry.type === 'function' || entry.type === 'custom') && typeof entry.name === 'string' ? findTool(names, entry.type, entry.name) : undefined;
      if (chat === undefined) throw errors.invalidRequest(`tool_choice.tools[${index}] names no tool of the request.`, `tool_choice.tools[${index}]`, 'invalid_value');
      allowed.add(chat);
    });
    // The model sees only the allowed tools: every provider honours that, where few know OpenAI's allowed_tools.
    return withTools(definitions.filter((definition) => allowed.has(definition.function.name)), mode);
  }
  throw errors.invalidRequest(
    `tool_choice of type ${JSON.stringify(object.type)} is not supported: it forces a tool that runs on OpenAI's servers.`,
    'tool_choice',
    'unsupported_value',
  );
}
