/**
 * A value that satisfies a JSON schema, for the offline simulator's structured
 * output and tool-call arguments. Deterministic: the same schema and seed give
 * the same value. It covers what clients send in practice (OpenAI structured
 * outputs, zod and pydantic schemas): objects, arrays, strings with formats,
 * numbers with bounds, enum/const, nullable unions, anyOf/oneOf/allOf and local
 * `$ref`s. `pattern` and `not` are not solved.
 */

type Schema = Readonly<Record<string, unknown>>;


const WORDS = 'alpha beta gamma delta route model token answer stream carbon budget agent prompt quick offline sample'.split(' ');

/** Past this depth optional parts are left out, so recursive schemas end. */
const SHALLOW_DEPTH = 4;
/** Past this depth nothing more is generated (a schema that requires itself forever). */
const MAX_DEPTH = 24;
/**
 * Caps on what one value may hold, whatever the schema asks (`minItems: 1e9`, a
 * minimum length of a gigabyte): the simulator runs in the gateway and must stay cheap.
 */
const MAX_VALUES = 5000;
const MAX_ITEMS = 200;
const MAX_STRING = 4000;
/** Past this many characters in all, strings ignore `minLength`. */
const MAX_CHARACTERS = 100_000;

export function sampleJsonValue(schema: unknown, random: () => number): unknown {
  const root = isSchema(schema) ? schema : {};
  return new Sampler(root, random).value(root, 0);
}

class Sampler {
  private values = 0;
  private characters = 0;

  constructor(
    private readonly root: Schema,
    private readonly random: () => number,
  ) {}

  value(input: Schema, depth: number): unknown {
    const schema = this.resolve(input);
    this.values += 1;
    if (depth > MAX_DEPTH || this.values > MAX_VALUES) return null;
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return this.pick(schema.enum);
    const branches = (schema.anyOf ?? schema.oneOf) as unknown;
    // Depth + 1 through combinators too: `anyOf: [{ $ref: '#' }]` must end.
    if (Array.isArray(branches) && branches.length > 0) return this.value(this.branch(branches.filter(isSchema), depth), depth + 1);
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      const { allOf, ...rest } = schema;
      return this.value(mergeAll([rest, ...(allOf as unknown[]).filter(isSchema).map((part) => this.resolve(part))]), depth + 1);
    }
    switch (this.typeOf(schema)) {
      case 'object':
        return this.object(schema, depth);
      case 'array':
        return this.array(schema, depth);
      case 'number':
        return this.number(schema, false);
      case 'integer':
        return this.number(schema, true);
      case 'boolean':
        return this.random() < 0.5;
      case 'null':
        return null;
      default:
        return this.string(schema);
    }
  }

  /** A non-null branch while shallow (more useful data); the null one, if any, once deep. */
  private branch(branches: Schema[], depth: number): Schema {
    const isNull = (branch: Schema) => this.resolve(branch).type === 'null';
    const wanted = depth >= SHALLOW_DEPTH ? branches.find(isNull) : branches.find((branch) => !isNull(branch));
    return wanted ?? branches[0] ?? {};
  }

  private typeOf(schema: Schema): string {
    const type = schema.type;
    if (typeof type === 'string') return type;
    // ["string", "null"]: the first real type; `nullable: true` (OpenAPI) needs no special case.
    if (Array.isArray(type)) return (type.find((entry) => entry !== 'null') ?? type[0] ?? 'string') as string;
    if (isSchema(schema.properties) || schema.additionalProperties !== undefined || Array.isArray(schema.required)) return 'object';
    if (schema.items !== undefined || Array.isArray(schema.prefixItems)) return 'array';
    if (typeof schema.minimum === 'number' || typeof schema.maximum === 'number') return 'number';
    return 'string';
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const properties = isSchema(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]).filter((name) => typeof name === 'string') : []);
    const out: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(properties)) {
      // Optional properties too while shallow: a strict schema lists every property as required anyway.
      if (!required.has(name) && depth >= SHALLOW_DEPTH) continue;
      defineProperty(out, name, this.value(isSchema(property) ? property : {}, depth + 1));
    }
    for (const name of required) if (!(name in out)) defineProperty(out, name, this.extra(schema, depth));
    const minProperties = typeof schema.minProperties === 'number' ? Math.min(schema.minProperties, MAX_ITEMS) : 0;
    for (let index = 1; Object.keys(out).length < minProperties && index <= MAX_ITEMS * 2; index += 1) {
      if (schema.additionalProperties === false) break;
      defineProperty(out, `key${index}`, this.extra(schema, depth));
    }
    return out;
  }

  /** A value for a key the properties do not describe (a required name without a schema, a record's entry). */
  private extra(schema: Schema, depth: number): unknown {
    return this.value(isSchema(schema.additionalProperties) ? schema.additionalProperties : {}, depth + 1);
  }

  private array(schema: Schema, depth: number): unknown[] {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as unknown[]) : [];
    const items = isSchema(schema.items) ? schema.items : schema.items === false ? undefined : {};
    const minItems = typeof schema.minItems === 'number' ? Math.min(schema.minItems, MAX_ITEMS) : 0;
    const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
    const wanted = depth >= SHALLOW_DEPTH ? minItems : Math.max(minItems, Math.min(prefix.length || 2, maxItems));
    const length = Math.min(items === undefined ? Math.min(wanted, prefix.length) : Math.min(wanted, maxItems), MAX_ITEMS);
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let index = 0, attempts = 0; out.length < length && attempts < length * 20; attempts += 1) {
      const itemSchema = index < prefix.length ? prefix[index] : items;
      const item = this.value(isSchema(itemSchema) ? itemSchema : {}, depth + 1);
      const key = JSON.stringify(item);
      // uniqueItems: draw again (the PRNG moves on); a schema with too few distinct values ends short.
      if (schema.uniqueItems === true && seen.has(key) && index >= prefix.length) continue;
      seen.add(key);
      out.push(item);
      index += 1;
    }
    return out;
  }

  private number(schema: Schema, integer: boolean): number {
    const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
    const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
    const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
    const nudge = step > 0 ? step : 0.5;
    let low = typeof schema.minimum === 'number' ? schema.minimum : exclusiveMin !== undefined ? exclusiveMin + nudge : undefined;
    let high = typeof schema.maximum === 'number' ? schema.maximum : exclusiveMax !== undefined ? exclusiveMax - nudge : undefined;
    if (exclusiveMin !== undefined && low !== undefined && low <= exclusiveMin) low = exclusiveMin + nudge;
    if (exclusiveMax !== undefined && high !== undefined && high >= exclusiveMax) high = exclusiveMax - nudge;
    low ??= high === undefined ? 1 : Math.min(1, high);
    high ??= low + 99;
    if (high < low) high = low;
    let value = low + this.random() * (high - low);
    if (step > 0) {
      const first = Math.ceil(low / step);
      const last = Math.floor(high / step);
      value = (last >= first ? first + Math.floor(this.random() * (last - first + 1)) : first) * step;
      // 0.1 * 3 is 0.30000000000000004: round to the step's own decimals.
      value = Number(value.toFixed(Math.min(decimals(step), 100)));
    } else {
      value = Math.round(value * 100) / 100;
      if (value < low || value > high) value = low;
    }
    return value;
  }

  private string(schema: Schema): string {
    let text = formatted(schema.format, this.random) ?? this.words(1 + Math.floor(this.random() * 3));
    const minLength = typeof schema.minLength === 'number' && this.characters < MAX_CHARACTERS ? Math.min(schema.minLength, MAX_STRING) : 0;
    const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
    while ([...text].length < minLength) text += ` ${this.words(1)}`;
    if ([...text].length > maxLength) text = [...text].slice(0, maxLength).join('');
    this.characters += text.length;
    return text;
  }

  private words(count: number): string {
    return Array.from({ length: count }, () => this.pick(WORDS)).join(' ');
  }

  private pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.random() * values.length)] as T;
  }

  /** Follows local `$ref`s (`#/$defs/…`, `#/definitions/…`, `#`), keeping the referring schema's other keywords. */
  private resolve(schema: Schema, seen = 0): Schema {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#') || seen > 32) return schema;
    let target: unknown = this.root;
    for (const raw of ref.slice(1).split('/').filter((part) => part !== '')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isSchema(target) ? (target as Record<string, unknown>)[key] : undefined;
    }
    const { $ref: _ref, ...rest } = schema;
    return isSchema(target) ? this.resolve({ ...target, ...rest }, seen + 1) : rest;
  }
}

/** allOf: properties and required lists united, other keywords from the later parts. */
function mergeAll(parts: readonly Schema[]): Schema {
  const merged: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  const required = new Set<unknown>();
  for (const part of parts) {
    Object.assign(merged, part);
    if (isSchema(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required)) for (const name of part.required) required.add(name);
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function formatted(format: unknown, random: () => number): string | undefined {
  switch (format) {
    case 'date-time':
      return '2026-01-15T09:30:00Z';
    case 'date':
      return '2026-01-15';
    case 'time':
      return '09:30:00Z';
    case 'duration':
      return 'PT1H';
    case 'email':
      return 'sim@example.com';
    case 'hostname':
      return 'example.com';
    case 'ipv4':
      return '192.0.2.1';
    case 'ipv6':
      return '2001:db8::1';
    case 'uri':
    case 'url':
      return 'https://example.com/sim';
    case 'uuid': {
      const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
    }
    default:
      return undefined;
  }
}

function decimals(step: number): number {
  const text = String(step);
  const exponent = /e-(\d+)$/.exec(text);
  if (exponent) return Number(exponent[1]);
  return text.includes('.') ? (text.split('.')[1]?.length ?? 0) : 0;
}

/** Plain assignment would let a property named `__proto__` change the object's prototype. */
function defineProperty(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
