/**
 * EcoLogits 0.9.1's estimate of one LLM generation request, as a pure function,
 * so that a sustainability team can recompute `_meta.carbon` from the inputs it
 * shows and check it against EcoLogits itself.
 *
 * Source: github.com/genai-impact/ecologits at tag 0.9.1 (commit 2d0a1c7),
 * `ecologits/impacts/llm.py`; the line numbers below are from that file.
 * EcoLogits also accepts ranges (min/max) for parameters and PUE; ModelPort
 * reports one figure, so each input here is a single value.
 */

/** Constants of EcoLogits 0.9.1, under their names in `ecologits/impacts/llm.py`. */
export const ecologitsConstants = {
  /** `MODEL_QUANTIZATION_BITS` (llm.py:8): weights assumed stored in 16 bits. */
  quantizationBits: 16,
  /** `GPU_ENERGY_ALPHA` (llm.py:10): Wh per output token per billion active parameters, before the batch term. */
  gpuEnergyAlpha: 1.1665273170451914e-6,
  /** `GPU_ENERGY_BETA` (llm.py:11): exponent per request in the batch. */
  gpuEnergyBeta: -0.011205921025579175,
  /** `GPU_ENERGY_GAMMA` (llm.py:12): Wh per output token independent of model size. */
  gpuEnergyGamma: 4.052928146734005e-5,
  /** `LATENCY_ALPHA` (llm.py:14): seconds per output token per billion active parameters. */
  latencyAlpha: 0.0006785088094353663,
  /** `LATENCY_BETA` (llm.py:15): seconds per output token per request in the batch. */
  latencyBeta: 0.0003119310311688259,
  /** `LATENCY_GAMMA` (llm.py:16): seconds per output token independent of model and batch. */
  latencyGamma: 0.019473717579473387,
  /** `GPU_MEMORY` (llm.py:18): GB on one H100 80GB card. */
  gpuMemoryGb: 80,
  /** 1.2 in `model_required_memory` (llm.py:111): 20 % beyond the weights for KV cache and activations. */
  memoryOverhead: 1.2,
  /** `GPU_EMBODIED_IMPACT_GWP` (llm.py:19): kg CO2e to make one H100 (NVIDIA HGX H100 PCF summary). */
  gpuEmbodiedKgCo2e: 164,
  /** `SERVER_GPUS` (llm.py:23): GPUs in one server (AWS p5.48xlarge). */
  serverGpus: 8,
  /** `SERVER_POWER` (llm.py:24): kW drawn by the server without its GPUs. */
  serverPowerKw: 1.2,
  /** `SERVER_EMBODIED_IMPACT_GWP` (llm.py:25): kg CO2e to make the server without GPUs (BoaviztAPI, p5.48xlarge). */
  serverEmbodiedKgCo2e: 5700,
  /** `HARDWARE_LIFESPAN` (llm.py:29): three 365-day years, in seconds. */
  hardwareLifespanSeconds: 3 * 365 * 24 * 60 * 60,
  /** `BATCH_SIZE` (llm.py:31): requests the server handles at once, sharing its energy and hardware. */
  batchSize: 64,
} as const;

export interface EcologitsInput {
  /** Parameters used per token, in billions (all of them for a dense model). */
  activeParamsB: number;
  /** Parameters held in GPU memory, in billions (decides the GPU count). */
  totalParamsB: number;
  outputTokens: number;
  /** Measured generation time of this call; bounds EcoLogits' modelled latency from above. */
  measuredGenerationSeconds?: number | undefined;
  pue: number;
  gridGramsPerKWh: number;
}

export interface EcologitsImpacts {
  /** Usage-phase energy of the request, PUE included. */
  energyWh: number;
  /** Usage-phase emissions: energy × grid intensity. */
  carbonGrams: number;
  /** Manufacturing share of the server and GPUs, kept apart from `carbonGrams`. */
  embodiedGrams: number;
  gpus: number;
  /** The latency the figures use: the smaller of the modelled and the measured one. */
  latencySeconds: number;
  method: 'ecologits-0.9';
}

/**
 * GPUs needed to hold the weights, rounded up to a power of two as EcoLogits
 * does (`gpu_required_count`, llm.py:115-130). At least one, where EcoLogits
 * would fail on log2(0) for a model of no parameters.
 */
export function ecologitsGpuCount(totalParamsB: number): number {
  const c = ecologitsConstants;
  const requiredGb = (c.memoryOverhead * totalParamsB * c.quantizationBits) / 8;
  const cards = Math.max(1, Math.ceil(requiredGb / c.gpuMemoryGb));
  return 2 ** Math.ceil(Math.log2(cards));
}

/** EcoLogits' modelled generation latency (`generation_latency`, llm.py:66-93), before the measured bound. */
export function ecologitsModelLatencySeconds(activeParamsB: number, outputTokens: number): number {
  const c = ecologitsConstants;
  const perToken = c.latencyAlpha * activeParamsB + c.latencyBeta * c.batchSize + c.latencyGamma;
  return outputTokens * perToken;
}

export function ecologitsImpacts(input: EcologitsInput): EcologitsImpacts {
  const c = ecologitsConstants;
  const gpus = ecologitsGpuCount(input.totalParamsB);

  // `gpu_energy` (llm.py:37-62): energy of one GPU, in Wh here where EcoLogits converts to kWh.
  const gpuWhPerToken =
    c.gpuEnergyAlpha * Math.exp(c.gpuEnergyBeta * c.batchSize) * input.activeParamsB + c.gpuEnergyGamma;
  const gpuWh = input.outputTokens * gpuWhPerToken;

  const modelled = ecologitsModelLatencySeconds(input.activeParamsB, input.outputTokens);
  const latencySeconds =
    input.measuredGenerationSeconds === undefined ? modelled : Math.min(modelled, input.measuredGenerationSeconds);

  // `server_energy` (llm.py:134-154): the share of the server the model's GPUs occupy, split across the batch.
  const serverWh =
    (latencySeconds / 3600) * c.serverPowerKw * 1000 * (gpus / c.serverGpus) * (1 / c.batchSize);

  // `request_energy` (llm.py:158-176) and `request_usage_gwp` (llm.py:180-194).
  const energyWh = input.pue * (serverWh + gpus * gpuWh);
  const carbonGrams = (energyWh / 1000) * input.gridGramsPerKWh;

  // `server_gpu_embodied_gwp` (llm.py:255-273) and `request_embodied_gwp` (llm.py:321-339): the server
  // is charged only for the share of its GPUs the model uses, the GPUs in full, both over the lifespan.
  const hardwareKg = (gpus / c.serverGpus) * c.serverEmbodiedKgCo2e + gpus * c.gpuEmbodiedKgCo2e;
  const embodiedGrams = ((latencySeconds * hardwareKg) / (c.hardwareLifespanSeconds * c.batchSize)) * 1000;

  return { energyWh, carbonGrams, embodiedGrams, gpus, latencySeconds, method: 'ecologits-0.9' };
}
