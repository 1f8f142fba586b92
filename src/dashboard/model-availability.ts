import type { ChatModel } from '../providers/contract.js';
import { acceptsOwnerKey } from '../providers/credentials/owner-credentials.js';
import type { LocalServerProbe } from '../providers/credentials/local-server-probe.js';
import { baseUrlVariable, findPreset, type ProviderPreset } from '../providers/credentials/provider-presets.js';

/** Whether a model can be called now and, when it cannot, what would make it callable. */
export interface Availability {
  readonly available: boolean;
  /** One sentence naming the variable to set, the key to add or the server to start; only when unavailable. */
  readonly unavailableReason?: string;
}

export interface AvailabilityInputs {
  /** The owner's resolver's answer for the model: undefined when its provider is not configured for them. */
  readonly resolved: ChatModel | undefined;
  /** Whether that model runs on the server's credentials rather than the owner's own. */
  readonly isServerModel: (model: ChatModel) => boolean;
  /** Which providers the environment configured and whether its local servers answer. Absent: configured is enough. */
  readonly probe: LocalServerProbe | undefined;
}

const AVAILABLE: Availability = { available: true };

/** A model's availability for one owner, from their resolver and the local servers' last checks. */
export function availabilityOf(provider: string, inputs: AvailabilityInputs): Availability {
  const { resolved, probe } = inputs;
  const preset = findPreset(provider);
  if (resolved !== undefined) {
    // Only the operator's local servers are checked; an owner's own endpoint is theirs to run.
    if (preset?.local !== true || !inputs.isServerModel(resolved)) return AVAILABLE;
    const state = probe?.state(provider);
    if (state === undefined || state.kind === 'up') return AVAILABLE;
    const label = serverName(preset);
    if (state.kind === 'unchecked') return unavailable(`Checking whether ${label} answers at ${state.baseUrl}`);
    return unavailable(`Not answering at ${state.baseUrl}: ${state.message.replace(/\.$/, '')}. Start ${label} there, or set ${baseUrlVariable(preset)} to where it runs`);
  }
  if (preset === undefined) return unavailable(`Add this workspace's credentials for the custom provider "${provider}"`);
  const configured = probe?.configured(provider) === true;
  if (preset.local === true) {
    const label = serverName(preset);
    return configured
      ? unavailable(`${label} is configured on this server but not offered to this workspace (MODELPORT_LOCAL_PROVIDERS)`)
      : unavailable(`Start ${label} and set ${baseUrlVariable(preset)} (e.g. ${preset.defaultBaseUrl}) and MODELPORT_LOCAL_PROVIDERS`);
  }
  // The server has credentials, yet the owner's resolver has none: the owner's own credential is unusable and
  // replaces the server's.
  if (configured) return unavailable(`This workspace's own ${preset.label} key cannot be used: add it again or remove it`);
  const variables = serverVariables(preset);
  return unavailable(acceptsOwnerKey(preset) ? `Set ${variables} (or add your own ${preset.label} key)` : `Set ${variables}`);
}

/** The environment variables that configure a provider server-wide, as provider-presets.ts reads them. */
function serverVariables(preset: ProviderPreset): string {
  if (preset.wireFormat === 'bedrock') return 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
  const key = `${preset.envPrefix}_API_KEY`;
  // Azure's endpoint has no default: both are needed.
  return preset.readCredentials !== undefined ? `${key} and ${baseUrlVariable(preset)}` : key;
}

/** `Ollama` for `Ollama (local)`. */
function serverName(preset: ProviderPreset): string {
  return preset.label.replace(/\s*\(local\)$/, '');
}

function unavailable(unavailableReason: string): Availability {
  return { available: false, unavailableReason };
}
