import { z } from 'zod';

/**
 * Zod schema of OpenAI's embeddings wire format, as far as the gateway reads it
 * (https://platform.openai.com/docs/api-reference/embeddings/object). Unknown
 * fields are allowed: OpenAI and the compatible servers add their own.
 */
export const openAIEmbeddingListSchema = z.looseObject({
  object: z.string().nullish(),
  data: z.array(
    z.looseObject({
      /** The input's position; the compatible servers that leave it out answer in input order. */
      index: z.number().int().nonnegative().nullish(),
      embedding: z.array(z.number()),
    }),
  ),
  model: z.string().nullish(),
  usage: z.looseObject({ prompt_tokens: z.number(), total_tokens: z.number().nullish() }).nullish(),
});

export type OpenAIEmbeddingList = z.infer<typeof openAIEmbeddingListSchema>;

/**
 * A parsed embeddings body checked against `openAIEmbeddingListSchema`. The usual
 * answer is checked by hand and returned as it is: zod copies every array it
 * validates, and a batch holds millions of numbers. The hand check accepts a strict
 * subset of what the schema accepts; anything else goes through the schema, which decides.
 */
export function readEmbeddingList(json: unknown): OpenAIEmbeddingList | undefined {
  if (isPlainEmbeddingList(json)) return json as OpenAIEmbeddingList;
  const parsed = openAIEmbeddingListSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainEmbeddingList(json: unknown): boolean {
  if (!isObject(json) || !Array.isArray(json.data)) return false;
  if (json.object !== undefined && json.object !== null && typeof json.object !== 'string') return false;
  if (json.model !== undefined && json.model !== null && typeof json.model !== 'string') return false;
  for (const item of json.data) {
    if (!isObject(item) || !Number.isInteger(item.index) || (item.index as number) < 0 || !Array.isArray(item.embedding)) return false;
    for (const value of item.embedding) if (typeof value !== 'number') return false;
  }
  const usage = json.usage;
  if (usage === undefined || usage === null) return true;
  return isObject(usage) && typeof usage.prompt_tokens === 'number' && (usage.total_tokens === undefined || usage.total_tokens === null || typeof usage.total_tokens === 'number');
}
