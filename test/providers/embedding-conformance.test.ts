import { describeEmbeddingConformance } from './embedding-conformance.js';
import { azureTarget, bedrockTarget, geminiTarget, openAICompatibleTarget, openAITarget } from './embedding-conformance-targets.js';

for (const target of [openAITarget, azureTarget, openAICompatibleTarget, geminiTarget, bedrockTarget]) describeEmbeddingConformance(target);
