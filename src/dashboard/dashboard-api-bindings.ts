import type { AgentDefinition } from '../agents/agent-definition.js';
import type { AgentMeta } from '../agents/agent-executor.js';
import type { ModelKind } from '../catalog/catalog.js';
import type { RouterMeta } from '../pipeline/router-meta.js';
import type { AgentDefinitionView, AgentLimitsView, AgentMetaView, AgentStepDefinitionView, ModelKindView, RouterMetaView } from './dashboard-api-types.js';

/**
 * Compile-time checks that the types the dashboard relays from the agents layer
 * fit the JSON shapes of dashboard-api-types.ts. The API types cannot import
 * them (the web app compiles that module without the server's dependencies), so
 * the type check holds them together here: a field renamed in an agent
 * definition or in the agent `_meta` fails here, and the web app's own check
 * then fails on whatever it reads of the renamed view field.
 */
type Holds<Condition extends true> = Condition;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;

/** Every definition the agents layer saves can be read as the dashboard's form reads it. */
export type AgentDefinitionFitsItsView = Holds<AgentDefinition extends AgentDefinitionView ? true : false>;

/** The form's definition, step and limits name the same fields as the agents layer's schema (whose checks decide the values). */
export type AgentDefinitionViewNamesTheSchemaFields = Holds<SameKeys<AgentDefinitionView, AgentDefinition>>;
export type AgentStepViewNamesTheSchemaFields = Holds<SameKeys<AgentStepDefinitionView, AgentDefinition['steps'][number]>>;
export type AgentLimitsViewNamesTheSchemaFields = Holds<SameKeys<AgentLimitsView, NonNullable<AgentDefinition['limits']>>>;

/** The kinds a router or model shows are exactly the catalog's. */
export type ModelKindViewIsTheCatalogs = Holds<[ModelKind] extends [ModelKindView] ? ([ModelKindView] extends [ModelKind] ? true : false) : false>;

/** The agent `_meta` of a run's answer reads as the dashboard's run panel reads it. */
export type AgentMetaFitsItsView = Holds<AgentMeta extends AgentMetaView ? true : false>;

/** A routed answer's `_meta` (chat or embeddings) reads as the playground reads it. */
export type RouterMetaFitsItsView = Holds<RouterMeta extends RouterMetaView ? true : false>;
