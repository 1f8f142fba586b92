import type { Usage } from '../providers/contract.js';
import type { ModelInfo } from '../catalog/catalog.js';

/**
 * Operational CO2e of one call, in the spirit of EcoLogits (docs/carbon.md):
 *   GPU energy  = completion tokens × (ALPHA × active params in B + BETA)     [Wh]
 *   server      = SERVER_POWER_KW × GPUs' share × generation time            [Wh]
 *   total       = (GPU + server) × PUE, × grid intensity of the region        [g]
 * Prompt tokens are processed in parallel and cost far less than generated ones;
 * they are counted at PREFILL_WEIGHT of an output token.
 */
export const carbonModel = {
  /** Wh per output token per billion active parameters (EcoLogits' linear fit of ML.ENERGY data). */
  alphaWhPerTokenPerB: 8.91e-5,
  /** Wh per output token at zero parameters (same fit). */
  betaWhPerToken: 1.43e-3,
  /** A prompt token costs this fraction of an output token. */
  prefillWeight: 0.05,
  /** Host overhead (CPU, memory, network) beside the GPUs, kW for the share of a server one request holds. */
  serverOverheadKw: 0.05,
} as const;

export function estimateEnergyWh(usage: Usage, model: ModelInfo, generationMs: number): number {
  const perToken = carbonModel.alphaWhPerTokenPerB * model.activeParamsB + carbonModel.betaWhPerToken;
  const tokens = usage.completionTokens + carbonModel.prefillWeight * usage.promptTokens;
  const gpuWh = tokens * perToken;
  const serverWh = carbonModel.serverOverheadKw * 1000 * (Math.max(0, generationMs) / 3_600_000);
  return (gpuWh + serverWh) * model.region.pue;
}

export function estimateCarbonGrams(usage: Usage, model: ModelInfo, generationMs: number): number {
  const grams = (estimateEnergyWh(usage, model, generationMs) / 1000) * model.region.gridGCo2PerKWh;
  return Math.round(grams * 1e6) / 1e6;
}

/**
 * Embodied emissions (manufacturing the hardware), reported apart from
 * `carbonGrams` as EcoLogits does: the server's manufacturing footprint spread
 * over its lifetime, charged for the generation time, for the share of the
 * server's GPUs the model needs to hold its weights.
 */
export const embodiedModel = {
  /** kg CO2e to manufacture one 8-GPU inference server (EcoLogits' order of magnitude for an HGX-class server). */
  serverKgCo2e: 5_700,
  gpusPerServer: 8,
  /** Five years of service. */
  lifetimeHours: 5 * 365 * 24,
  /** 80 GB accelerators holding 16-bit weights with 20 % overhead for the KV cache and activations. */
  gpuMemoryGb: 80,
  bytesPerParameter: 2,
  memoryOverhead: 1.2,
} as const;

export function gpusNeeded(model: ModelInfo): number {
  const gigabytes = model.activeParamsB * embodiedModel.bytesPerParameter * embodiedModel.memoryOverhead;
  return Math.min(embodiedModel.gpusPerServer, Math.max(1, Math.ceil(gigabytes / embodiedModel.gpuMemoryGb)));
}

export function estimateEmbodiedGrams(model: ModelInfo, generationMs: number): number {
  const serverShare = gpusNeeded(model) / embodiedModel.gpusPerServer;
  const gramsPerHour = (embodiedModel.serverKgCo2e * 1000) / embodiedModel.lifetimeHours;
  const grams = gramsPerHour * serverShare * (Math.max(0, generationMs) / 3_600_000);
  return Math.round(grams * 1e6) / 1e6;
}
