/**
 * What health is kept under. A model called with the server's credentials is
 * known by its id (`openai:gpt-4o`), the key strategies read latency by. A model
 * called with an owner's own credentials gets a key of its own
 * (`openai:gpt-4o|owner:usr_…`): one owner's revoked key or exhausted quota
 * must not open circuits or start back-offs for everyone else.
 */

const SCOPE_SEPARATOR = '|';

export function ownerScopedKey(modelId: string, ownerId: string): string {
  return `${modelId}${SCOPE_SEPARATOR}owner:${ownerId}`;
}

/** The provider a key's model belongs to, in the same scope: `openai`, `openai|owner:usr_…`. */
export function providerKeyOf(key: string): string {
  const scopeAt = key.indexOf(SCOPE_SEPARATOR);
  const modelId = scopeAt === -1 ? key : key.slice(0, scopeAt);
  const scope = scopeAt === -1 ? '' : key.slice(scopeAt);
  const colon = modelId.indexOf(':');
  return `${colon === -1 ? modelId : modelId.slice(0, colon)}${scope}`;
}
