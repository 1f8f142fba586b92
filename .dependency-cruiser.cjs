/**
 * The import rule of src/ (docs/architecture.md): layers that point one way, and no cycles.
 * `npm run lint:layers` checks it and `npm test` runs that right after the type check;
 * test/architecture/layers.test.ts shows it failing on a deliberate upward import and a cycle.
 *
 * A module may import from its own layer and from lower ones, never from a higher one. Type-only
 * imports count too: a type pulled up from a higher layer ties the lower one to it just the same.
 * Tests (`*.test.ts`) may reach across layers to set up what they test; they may not form cycles.
 */

/** Lowest first. Each entry: a name, the paths it holds (regexes on the path from the repo root), and what it is. */
const LAYERS = [
  // Leaf helpers with no knowledge of the gateway: errors, ids, caches, the secret box.
  { name: 'lib', paths: ['^src/lib/'] },
  // The database (Kysely), one repository per table, migrations, the Redis link: persistence only.
  { name: 'storage', paths: ['^src/storage/'] },
  // The model catalog (models, prices, regions, facts) and key/password handling: both sit on storage alone.
  { name: 'catalog, auth', paths: ['^src/catalog/', '^src/auth/'] },
  // The provider-neutral contract, the transport to upstreams, owners' credentials, one folder per wire format.
  { name: 'providers', paths: ['^src/providers/'] },
  // Tokens, cost, carbon and the usage recorder: what a call cost, priced from the catalog.
  { name: 'accounting', paths: ['^src/accounting/'] },
  // Routers, strategies, eligibility, fallback across candidates, model health.
  { name: 'routing', paths: ['^src/routing/'] },
  // Metrics, and what instances share through Redis (registry, pub/sub invalidation, health sync).
  { name: 'observability, cluster', paths: ['^src/observability/', '^src/cluster/'] },
  // Rate limits, concurrency and budgets.
  { name: 'limits', paths: ['^src/limits/'] },
  // One routed call from admission to usage record, shared by every inbound surface.
  { name: 'pipeline', paths: ['^src/pipeline/'] },
  // Agents: definitions, the DAG scheduler, the executor; each step is a pipeline call.
  { name: 'agents', paths: ['^src/agents/'] },
  // Owner operations and the dashboard's services, shared by the HTTP API and the CLI.
  { name: 'admin, dashboard', paths: ['^src/admin/', '^src/dashboard/'] },
  // The surfaces: the HTTP server and its adapters, the command-line client, the multi-process workers.
  { name: 'http, cli, workers', paths: ['^src/http/', '^src/cli/', '^src/workers/'] },
  // The app: the config and every piece of wiring, the entry points (files directly in src/).
  { name: 'app', paths: ['^src/[^/]+$'] },
];

const TESTS = '\\.test\\.ts$';

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name.replace(/, /g, '-')}`,
  comment: `${layer.name} may import only from itself and lower layers (${LAYERS.slice(0, index)
    .map((lower) => lower.name)
    .join('; ') || 'none'}).`,
  severity: 'error',
  from: { path: layer.paths, pathNot: TESTS },
  to: { path: LAYERS.slice(index + 1).flatMap((higher) => higher.paths) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved without the other.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    // Every folder of src/ has a layer, so that none escapes the rule: a new one is added to LAYERS.
    {
      name: 'layer-unknown',
      comment: 'This module is in a folder of src/ without a layer: add the folder to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: [...LAYERS.flatMap((layer) => layer.paths), TESTS] },
      to: {},
    },
    {
      name: 'layer-unknown-imported',
      comment: 'This import reaches a folder of src/ without a layer: add the folder to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: LAYERS.flatMap((layer) => layer.paths) },
    },
    {
      name: 'web-server-types-only',
      comment: 'The dashboard app may share the server\'s types (import type), never its code: it runs in a browser.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    // Type-only imports are dependencies too (see the top of this file).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
