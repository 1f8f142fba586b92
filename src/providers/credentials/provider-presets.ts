/**
 * Every provider the gateway can speak to, by name (the part before the colon in
 * `provider:model`). A provider is one wire format plus a base URL and a key;
 * the OpenAI-compatible family differs only in those.
 */
export type WireFormat = 'openai' | 'anthropic' | 'gemini' | 'azure' | 'bedrock' | 'sim';

export interface ProviderPreset {
  /** The name used in model ids, e.g. `groq` in `groq:llama-3.3-70b-versatile`. */
  readonly name: string;
  readonly label: string;
  readonly wireFormat: WireFormat;
  /** `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` configure it server-wide. */
  readonly envPrefix: string;
  /** As that provider's own SDK takes it: OpenAI-style ends in `/v1`; Anthropic and Gemini are the bare host. */
  readonly defaultBaseUrl: string;
  /** Whether a server-wide key must be set for the provider to be configured (local servers need none). */
  readonly requiresKey: boolean;
  /**
   * A model server on the operator's own machine or network (Ollama, vLLM…): configured only when the operator sets
   * its base URL, and offered only to the owners MODELPORT_LOCAL_PROVIDERS names (local-provider-access.ts).
   */
  readonly local?: boolean;
  /** The variable that sets its base URL. @default `<PREFIX>_BASE_URL` */
  readonly baseUrlVariable?: string;
  /** For providers configured otherwise than by `<PREFIX>_API_KEY` and `<PREFIX>_BASE_URL` (Azure, Bedrock). */
  readonly readCredentials?: (environment: Readonly<Record<string, string | undefined>>) => ProviderCredentials | undefined;
}

const openAICompatible = (name: string, label: string, envPrefix: string, defaultBaseUrl: string, { local = false } = {}): ProviderPreset => ({
  name,
  label,
  wireFormat: 'openai',
  envPrefix,
  defaultBaseUrl,
  requiresKey: !local,
  ...(local ? { local } : {}),
});

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  openAICompatible('openai', 'OpenAI', 'OPENAI', 'https://api.openai.com/v1'),
  { name: 'anthropic', label: 'Anthropic', wireFormat: 'anthropic', envPrefix: 'ANTHROPIC', defaultBaseUrl: 'https://api.anthropic.com', requiresKey: true },
  { name: 'gemini', label: 'Google Gemini', wireFormat: 'gemini', envPrefix: 'GEMINI', defaultBaseUrl: 'https://generativelanguage.googleapis.com', requiresKey: true },
  openAICompatible('groq', 'Groq', 'GROQ', 'https://api.groq.com/openai/v1'),
  openAICompatible('together', 'Together AI', 'TOGETHER', 'https://api.together.xyz/v1'),
  openAICompatible('mistral', 'Mistral', 'MISTRAL', 'https://api.mistral.ai/v1'),
  openAICompatible('deepseek', 'DeepSeek', 'DEEPSEEK', 'https://api.deepseek.com/v1'),
  openAICompatible('fireworks', 'Fireworks AI', 'FIREWORKS', 'https://api.fireworks.ai/inference/v1'),
  openAICompatible('xai', 'xAI', 'XAI', 'https://api.x.ai/v1'),
  {
    name: 'azure',
    label: 'Azure OpenAI',
    wireFormat: 'azure',
    envPrefix: 'AZURE_OPENAI',
    baseUrlVariable: 'AZURE_OPENAI_ENDPOINT',
    defaultBaseUrl: 'https://<resource>.openai.azure.com',
    requiresKey: true,
    readCredentials: readAzureCredentials,
  },
  {
    name: 'bedrock',
    label: 'Amazon Bedrock',
    wireFormat: 'bedrock',
    envPrefix: 'BEDROCK',
    defaultBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    requiresKey: true,
    readCredentials: readBedrockCredentials,
  },
  openAICompatible('openrouter', 'OpenRouter', 'OPENROUTER', 'https://openrouter.ai/api/v1'),
  openAICompatible('perplexity', 'Perplexity', 'PERPLEXITY', 'https://api.perplexity.ai'),
  openAICompatible('cerebras', 'Cerebras', 'CEREBRAS', 'https://api.cerebras.ai/v1'),
  openAICompatible('ollama', 'Ollama (local)', 'OLLAMA', 'http://127.0.0.1:11434/v1', { local: true }),
  openAICompatible('vllm', 'vLLM (local)', 'VLLM', 'http://127.0.0.1:8000/v1', { local: true }),
  openAICompatible('lmstudio', 'LM Studio (local)', 'LMSTUDIO', 'http://127.0.0.1:1234/v1', { local: true }),
  openAICompatible('llamacpp', 'llama.cpp server (local)', 'LLAMACPP', 'http://127.0.0.1:8080/v1', { local: true }),
];

export interface ProviderCredentials {
  readonly apiKey?: string;
  readonly baseUrl: string;
  /**
   * Provider-specific settings, by name: Azure's `apiVersion`; Bedrock's `region`,
   * `secretAccessKey` and `sessionToken` (its access key id is `apiKey`).
   */
  readonly options?: Readonly<Record<string, string>>;
}

/**
 * Server-wide credentials from the environment: a provider is configured when
 * its key is set, a local server when its base URL is set. A local preset's
 * default address is never used on its own: what answers on the gateway's
 * loopback is not for every account to call.
 */
export function readProviderCredentials(environment: Record<string, string | undefined>): Map<string, ProviderCredentials> {
  const credentials = new Map<string, ProviderCredentials>();
  for (const preset of PROVIDER_PRESETS) {
    if (preset.readCredentials !== undefined) {
      const read = preset.readCredentials(environment);
      if (read !== undefined) credentials.set(preset.name, read);
      continue;
    }
    const apiKey = nonEmpty(environment[`${preset.envPrefix}_API_KEY`]);
    const configuredBaseUrl = nonEmpty(environment[baseUrlVariable(preset)]);
    if (preset.requiresKey && apiKey === undefined) continue;
    if (preset.local === true && configuredBaseUrl === undefined) continue;
    credentials.set(preset.name, { baseUrl: configuredBaseUrl ?? preset.defaultBaseUrl, ...(apiKey !== undefined ? { apiKey } : {}) });
  }
  return credentials;
}

/**
 * The providers whose base URL the operator set (`<PREFIX>_BASE_URL`, `AZURE_OPENAI_ENDPOINT`): those
 * addresses are the operator's choice and are connected to as they are. Every other address (a preset's
 * default, an owner's base URL) goes through the SSRF guard at connection time.
 */
export function readOperatorBaseUrls(environment: Readonly<Record<string, string | undefined>>): ReadonlySet<string> {
  return new Set(PROVIDER_PRESETS.filter((preset) => nonEmpty(environment[baseUrlVariable(preset)]) !== undefined).map((preset) => preset.name));
}

/**
 * Where each preset's server is: the base URL the operator set (`<PREFIX>_BASE_URL`) even without a server-wide key,
 * else the preset's default. Owners' own keys for a preset go there too, so an operator's proxy or private
 * endpoint is used for every key, the server's and the owners'.
 */
export function readServerBaseUrls(environment: Readonly<Record<string, string | undefined>>): ReadonlyMap<string, string> {
  const urls = new Map<string, string>();
  for (const preset of PROVIDER_PRESETS) {
    const configured = nonEmpty(environment[baseUrlVariable(preset)]);
    if (configured !== undefined) urls.set(preset.name, configured);
  }
  return urls;
}

/** The names of the local presets (Ollama, vLLM, LM Studio, llama.cpp). */
export const LOCAL_PROVIDER_NAMES: ReadonlySet<string> = new Set(PROVIDER_PRESETS.filter((preset) => preset.local === true).map((preset) => preset.name));

export function baseUrlVariable(preset: ProviderPreset): string {
  return preset.baseUrlVariable ?? `${preset.envPrefix}_BASE_URL`;
}

export function findPreset(name: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((preset) => preset.name === name);
}

/**
 * Azure OpenAI: configured when AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT
 * (https://<resource>.openai.azure.com) are set; AZURE_OPENAI_API_VERSION picks
 * the api-version (default: the Azure adapter's GA version).
 */
function readAzureCredentials(environment: Readonly<Record<string, string | undefined>>): ProviderCredentials | undefined {
  const apiKey = nonEmpty(environment.AZURE_OPENAI_API_KEY);
  const endpoint = nonEmpty(environment.AZURE_OPENAI_ENDPOINT);
  if (apiKey === undefined || endpoint === undefined) return undefined;
  const apiVersion = nonEmpty(environment.AZURE_OPENAI_API_VERSION);
  return { apiKey, baseUrl: endpoint, ...(apiVersion !== undefined ? { options: { apiVersion } } : {}) };
}

/**
 * Amazon Bedrock: configured when AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are
 * set (AWS_SESSION_TOKEN too for temporary credentials), in AWS_REGION (else
 * AWS_DEFAULT_REGION, else us-east-1). BEDROCK_BASE_URL replaces the regional
 * runtime endpoint (VPC endpoints, proxies, tests).
 */
function readBedrockCredentials(environment: Readonly<Record<string, string | undefined>>): ProviderCredentials | undefined {
  const accessKeyId = nonEmpty(environment.AWS_ACCESS_KEY_ID);
  const secretAccessKey = nonEmpty(environment.AWS_SECRET_ACCESS_KEY);
  if (accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  const region = nonEmpty(environment.AWS_REGION) ?? nonEmpty(environment.AWS_DEFAULT_REGION) ?? 'us-east-1';
  const sessionToken = nonEmpty(environment.AWS_SESSION_TOKEN);
  return {
    apiKey: accessKeyId,
    baseUrl: nonEmpty(environment.BEDROCK_BASE_URL) ?? `https://bedrock-runtime.${region}.amazonaws.com`,
    options: { region, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
