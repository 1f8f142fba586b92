import type { MaybePromise } from '../../lib/maybe-promise.js';
import { LOCAL_PROVIDER_NAMES, baseUrlVariable, findPreset } from './provider-presets.js';

/**
 * Who may use the operator's local model servers (the `local` presets: Ollama, vLLM, LM Studio, llama.cpp), as
 * MODELPORT_LOCAL_PROVIDERS says: nobody (`none`, the default), every owner (`all`), or the owners it names by id
 * (`usr_…`, `org_…`) or email. These servers take no key and sit on the operator's machine or network; offered to
 * every account, anyone who signs up could use them, or probe what answers there.
 */
export type LocalProviderAccess =
  | { readonly kind: 'none' }
  | { readonly kind: 'all' }
  | { readonly kind: 'owners'; readonly ownerIds: ReadonlySet<string>; readonly emails: ReadonlySet<string> };

/** Whether one owner may use the local providers the operator configured. */
export type LocalProviderGate = (ownerId: string) => MaybePromise<boolean>;

export class LocalProviderAccessError extends Error {}

const OWNER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
// Enough to tell an email from an owner id and to refuse what no account can have; sign-up validates addresses.
const EMAIL = /^[^\s@,]+@[^\s@,]+$/;

/** Reads MODELPORT_LOCAL_PROVIDERS: `none`, `all`, or owner ids and emails separated by commas or spaces. */
export function parseLocalProviderAccess(raw: string | undefined): LocalProviderAccess {
  const entries = (raw ?? '').split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 0) return { kind: 'none' };
  const keywords = entries.filter((entry) => /^(all|none)$/i.test(entry));
  if (keywords.length > 0) {
    if (entries.length > 1) throw new LocalProviderAccessError(`"all" and "none" stand alone; got ${entries.join(', ')}.`);
    return { kind: keywords[0]?.toLowerCase() === 'all' ? 'all' : 'none' };
  }
  const ownerIds = new Set<string>();
  const emails = new Set<string>();
  for (const entry of entries) {
    if (entry.includes('@')) {
      if (!EMAIL.test(entry)) throw new LocalProviderAccessError(`"${entry}" is not an email address.`);
      emails.add(entry.toLowerCase());
    } else {
      if (!OWNER_ID.test(entry)) throw new LocalProviderAccessError(`"${entry}" is neither an owner id (usr_…, org_…) nor an email address.`);
      ownerIds.add(entry);
    }
  }
  return { kind: 'owners', ownerIds, emails };
}

/**
 * The gate for one access setting. An email matches the account that has it now (`findOwner`), read only when the
 * owner's id is not named itself; callers cache the answer per owner.
 */
export function createLocalProviderGate(access: LocalProviderAccess, findOwner: (ownerId: string) => Promise<{ readonly email: string } | undefined>): LocalProviderGate {
  if (access.kind === 'none') return () => false;
  if (access.kind === 'all') return () => true;
  const { ownerIds, emails } = access;
  return (ownerId) => {
    if (ownerIds.has(ownerId)) return true;
    if (emails.size === 0 || ownerId === '') return false;
    return findOwner(ownerId).then((owner) => owner !== undefined && emails.has(owner.email.toLowerCase()));
  };
}

/** Whether a provider name is one of the local presets. */
export function isLocalProvider(provider: string): boolean {
  return LOCAL_PROVIDER_NAMES.has(provider);
}

/**
 * For the log at start: the local servers the operator configured that no owner may use (their base URL set while
 * MODELPORT_LOCAL_PROVIDERS is `none`), or an empty list.
 */
export function unreachableLocalProviders(access: LocalProviderAccess, configured: Iterable<string>): string[] {
  if (access.kind !== 'none') return [];
  return [...configured].filter(isLocalProvider).map((name) => {
    const preset = findPreset(name);
    return preset === undefined ? name : baseUrlVariable(preset);
  });
}
