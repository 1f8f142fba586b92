/**
 * Prompt templates: `{{input}}`, `{{messages}}`, `{{steps.<name>.output}}` and
 * `{{steps.<name>.json.<field>[.<field>…]}}`, with optional spaces inside the
 * braces. Anything else between double braces is an unknown variable, refused
 * when the agent is saved.
 */

export type TemplateVariable =
  | { readonly kind: 'input' }
  | { readonly kind: 'messages' }
  | { readonly kind: 'output'; readonly step: string }
  | { readonly kind: 'json'; readonly step: string; readonly path: readonly string[] };

export type TemplatePiece = { readonly text: string } | { readonly variable: TemplateVariable; readonly source: string };

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const STEP_NAME = '[a-z][a-z0-9_-]*';
const OUTPUT = new RegExp(`^steps\\.(${STEP_NAME})\\.output$`);
const JSON_FIELD = new RegExp(`^steps\\.(${STEP_NAME})\\.json((?:\\.[A-Za-z0-9_-]+)+)$`);

export class TemplateError extends Error {}

/** Splits a template into text and variables; throws TemplateError naming the first unknown variable. */
export function parseTemplate(template: string): TemplatePiece[] {
  const pieces: TemplatePiece[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const index = match.index;
    if (index > last) pieces.push({ text: template.slice(last, index) });
    pieces.push({ variable: readVariable(match[1] ?? ''), source: match[0] });
    last = index + match[0].length;
  }
  if (last < template.length) pieces.push({ text: template.slice(last) });
  return pieces;
}

function readVariable(expression: string): TemplateVariable {
  if (expression === 'input') return { kind: 'input' };
  if (expression === 'messages') return { kind: 'messages' };
  const output = OUTPUT.exec(expression);
  if (output?.[1] !== undefined) return { kind: 'output', step: output[1] };
  const json = JSON_FIELD.exec(expression);
  if (json?.[1] !== undefined && json[2] !== undefined) return { kind: 'json', step: json[1], path: json[2].slice(1).split('.') };
  throw new TemplateError(
    `unknown variable "{{${expression}}}"; use {{input}}, {{messages}}, {{steps.<name>.output}} or {{steps.<name>.json.<field>}}`,
  );
}

/** The steps a template reads. */
export function referencedSteps(pieces: readonly TemplatePiece[]): string[] {
  const steps = new Set<string>();
  for (const piece of pieces) if ('variable' in piece && (piece.variable.kind === 'output' || piece.variable.kind === 'json')) steps.add(piece.variable.step);
  return [...steps];
}

/** What a template is rendered from. */
export interface TemplateValues {
  /** The request's last user message. */
  readonly input: string;
  /** The whole conversation, one `role: content` line per message. */
  readonly messages: string;
  /** Finished steps: their text, and their parsed JSON when they asked for JSON output. */
  readonly steps: ReadonlyMap<string, { readonly output: string; readonly json?: unknown }>;
}

/**
 * Renders parsed pieces. A JSON field that is a string is inserted as is,
 * anything else as JSON; a field the step's output does not have throws
 * TemplateError (the step that needs it fails with a clear message).
 */
export function renderTemplate(pieces: readonly TemplatePiece[], values: TemplateValues): string {
  let text = '';
  for (const piece of pieces) {
    if ('text' in piece) {
      text += piece.text;
      continue;
    }
    const variable = piece.variable;
    switch (variable.kind) {
      case 'input':
        text += values.input;
        break;
      case 'messages':
        text += values.messages;
        break;
      case 'output':
        text += stepOf(values, variable.step).output;
        break;
      case 'json': {
        let value: unknown = stepOf(values, variable.step).json;
        for (const field of variable.path) {
          if (typeof value !== 'object' || value === null || !Object.hasOwn(value, field)) {
            throw new TemplateError(`step "${variable.step}" returned JSON without the field "${variable.path.join('.')}" that ${piece.source} reads`);
          }
          value = (value as Record<string, unknown>)[field];
        }
        text += typeof value === 'string' ? value : JSON.stringify(value);
        break;
      }
    }
  }
  return text;
}

function stepOf(values: TemplateValues, step: string): { readonly output: string; readonly json?: unknown } {
  const found = values.steps.get(step);
  // Save-time validation makes every referenced step a prerequisite: this is a bug, not a user error.
  if (found === undefined) throw new Error(`step "${step}" has not run`);
  return found;
}
