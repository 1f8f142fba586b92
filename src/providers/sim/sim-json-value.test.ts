import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { seededRandom } from '../../lib/seeded-random.js';
import { sampleJsonValue } from './sim-json-value.js';

const SEEDS = Array.from({ length: 40 }, (_, index) => index * 7919 + 1);

/** Every seed's value passes the zod schema the JSON schema was made from. */
function assertSamplesPass(schema: z.ZodType, options: Parameters<typeof z.toJSONSchema>[1] = {}): void {
  const json = z.toJSONSchema(schema, options);
  for (const seed of SEEDS) {
    const value = sampleJsonValue(json, seededRandom(seed));
    const result = schema.safeParse(value);
    assert.ok(result.success, `seed ${seed}: ${JSON.stringify(value)} fails: ${result.success ? '' : result.error.message}`);
  }
}

describe('sampleJsonValue', () => {
  it('is deterministic for a seed, and the seed matters', () => {
    const schema = { type: 'object', properties: { title: { type: 'string' }, score: { type: 'number' } }, required: ['title', 'score'] };
    assert.deepEqual(sampleJsonValue(schema, seededRandom(42)), sampleJsonValue(schema, seededRandom(42)));
    const distinct = new Set(SEEDS.map((seed) => JSON.stringify(sampleJsonValue(schema, seededRandom(seed)))));
    assert.ok(distinct.size > 1);
  });

  it('objects with every kind of property, as zod writes them (strict: no extra keys)', () => {
    assertSamplesPass(
      z.strictObject({
        name: z.string().min(3).max(12),
        age: z.number().int().min(18).max(99),
        ratio: z.number().gt(0).lt(1),
        price: z.number().multipleOf(0.25).min(10),
        active: z.boolean(),
        colour: z.enum(['red', 'green', 'blue']),
        kind: z.literal('person'),
        nickname: z.string().nullable(),
        tags: z.array(z.string()).min(3).max(5),
        id: z.uuid(),
        email: z.email(),
        born: z.iso.datetime(),
        address: z.object({ city: z.string(), zip: z.string().length(5) }),
        optional: z.string().optional(),
      }),
    );
  });

  it('unions, tuples, records, intersections and recursion ($ref)', () => {
    assertSamplesPass(z.object({ value: z.union([z.string(), z.number(), z.object({ a: z.boolean() })]) }));
    assertSamplesPass(z.tuple([z.string(), z.number().int(), z.boolean()]));
    assertSamplesPass(z.record(z.string(), z.number().int().positive()));
    assertSamplesPass(z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })));
    const Category = z.object({
      name: z.string(),
      get children() {
        return z.array(Category);
      },
    });
    assertSamplesPass(Category);
    const Shared = z.object({ x: z.number() }).meta({ id: 'Shared' });
    assertSamplesPass(z.object({ first: Shared, second: Shared, list: z.array(Shared).min(1) }));
  });

  it('honours enum, const, minItems, minimum and exclusive bounds in plain JSON schemas', () => {
    for (const seed of SEEDS) {
      const random = seededRandom(seed);
      const value = sampleJsonValue(
        {
          type: 'object',
          properties: {
            level: { enum: ['low', 'high'] },
            fixed: { const: 7 },
            many: { type: 'array', items: { type: 'integer', minimum: 5 }, minItems: 4 },
            positive: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
            either: { type: ['integer', 'null'], minimum: 100, maximum: 100 },
            legacy: { type: 'string', nullable: true, maxLength: 3 },
          },
          required: ['level', 'fixed', 'many', 'positive', 'either', 'legacy'],
          additionalProperties: false,
        },
        random,
      ) as Record<string, unknown>;
      assert.deepEqual(Object.keys(value), ['level', 'fixed', 'many', 'positive', 'either', 'legacy']);
      assert.ok(['low', 'high'].includes(value.level as string));
      assert.equal(value.fixed, 7);
      const many = value.many as number[];
      assert.ok(many.length >= 4 && many.every((item) => Number.isInteger(item) && item >= 5), JSON.stringify(many));
      assert.ok((value.positive as number) > 0 && (value.positive as number) <= 0.5, String(value.positive));
      assert.equal(value.either, 100);
      assert.ok(typeof value.legacy === 'string' && value.legacy.length <= 3);
    }
  });

  it('ends on a schema that requires itself, and never sets a prototype', () => {
    const endless = { type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] };
    const value = sampleJsonValue(endless, seededRandom(1));
    let depth = 0;
    for (let node = value as { next?: unknown } | null; node !== null && typeof node === 'object'; node = node.next as { next?: unknown } | null) depth += 1;
    assert.ok(depth > 1 && depth < 40, String(depth));
    const hostile = sampleJsonValue(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}'), seededRandom(1));
    assert.equal(Object.getPrototypeOf(hostile), Object.prototype);
    assert.equal(typeof Object.getOwnPropertyDescriptor(hostile, '__proto__')?.value, 'string');
  });
});

describe('sampleJsonValue on hostile schemas', () => {
  it('stays small and quick whatever sizes the schema demands', () => {
    const started = performance.now();
    const huge = {
      type: 'array',
      minItems: 1e9,
      items: { type: 'object', properties: { s: { type: 'string', minLength: 1e9 }, n: { type: 'number', multipleOf: 1e-300, minimum: 0, maximum: 1 } }, required: ['s', 'n'], minProperties: 1e9 },
    };
    const value = sampleJsonValue(huge, seededRandom(1));
    assert.ok(JSON.stringify(value).length < 2_000_000);
    const selfish = sampleJsonValue({ anyOf: [{ $ref: '#' }], allOf: [{ $ref: '#' }] }, seededRandom(1));
    assert.equal(selfish, null);
    assert.ok(performance.now() - started < 5000, `${performance.now() - started} ms`);
  });
});
