/**
 * Shapes of the dashboard JSON API (docs/dashboard-api.md): the server's own
 * types (src/dashboard/dashboard-api-types.ts), as its routes answer them.
 * `IsoTimes` turns the services' epoch milliseconds into the ISO 8601 strings
 * the API sends. Type-only: nothing of the server reaches the browser bundle.
 */
import type {
  AgentDefinitionView,
  AgentLimitsView,
  AgentMetaView,
  AgentStepDefinitionView,
  AgentVersionView,
  AgentView,
  AgentWithVersionsView,
  AuthView,
  CalibrationView,
  CatalogModelView,
  CreatedKeyView,
  ExecutionErrorView,
  ExecutionStepView,
  ExecutionView,
  ExecutionWithStepsView,
  FeedbackView,
  IsoTimes,
  KeyView,
  MemberView,
  ModelKindView,
  PlaygroundEmbeddingsRequestView,
  PlaygroundEmbeddingsView,
  RequestsPageView,
  RouterFitView,
  RouterMetaView,
  RouterSettingsView,
  RouterView,
  SavingsReportView,
  SessionView,
  SignUpStatusView,
  SignUpView,
  StrategyView,
  TrafficReportView,
  UsageBreakdownRowView,
  UsagePointView,
  UsageReportView,
  UsageRequestView,
  UsageTotalsView,
  UserView,
  WorkspaceRoleName,
  WorkspaceView,
} from '../../../src/dashboard/dashboard-api-types';
import type {
  CustomModelView,
  ProviderCredentialApiView,
  ProviderListView,
  ProviderPresetView,
  ProviderTestView,
  SavedCustomModelView,
  SavedProviderView,
} from '../../../src/dashboard/provider-api-types';

import type { RequestAttemptView, RequestLogEntryView } from '../../../src/dashboard/request-log-api-types';

export type { KeyStatus } from '../../../src/dashboard/dashboard-api-types';

export type Role = WorkspaceRoleName;
export type User = UserView;
export type Workspace = WorkspaceView;
export type Session = SessionView;
export type AuthResponse = AuthView;
/** POST /auth/signup: a link was mailed; the same whether or not the address has an account. */
export type SignUpResponse = SignUpView;
export type SignUpStatus = SignUpStatusView;
export type Member = IsoTimes<MemberView>;

/** What a model, and a router of such models, does: `chat` or `embedding`. */
export type ModelKind = ModelKindView;
export type CatalogModel = CatalogModelView;
export type Strategy = StrategyView;
export type RouterSettings = RouterSettingsView;
export type Router = IsoTimes<RouterView>;

export type ApiKey = IsoTimes<KeyView>;
/** A key as created: its plaintext appears once. */
export type CreatedKey = IsoTimes<CreatedKeyView>;

export type UsagePoint = IsoTimes<UsagePointView>;
export type UsageTotals = UsageTotalsView;
/** One row of a breakdown: `id` names the router, model or key. */
export type UsageBreakdownRow = UsageBreakdownRowView;
export type UsageReport = IsoTimes<UsageReportView>;
/** A request record: what the gateway answered, the figures of its `_meta`. */
export type UsageRequest = IsoTimes<UsageRequestView>;
/** GET /workspaces/:ws/usage/requests/:id: a request of the log, with its routing, attempts and (when kept) bodies. */
export type RequestLogEntry = IsoTimes<RequestLogEntryView>;
export type RequestAttempt = RequestAttemptView;
export type RequestsPage = IsoTimes<RequestsPageView>;
export type TrafficReport = IsoTimes<TrafficReportView>;

/** An `auto` router's fit, as the router page shows it. */
export type RouterFit = RouterFitView;
/** `POST /workspaces/:ws/routers/:id/calibration`: what the upload fitted. */
export type Calibration = CalibrationView;
/** `GET /workspaces/:ws/routers/:id/savings`: cost against always using the strongest model, and feedback. */
export type SavingsReport = IsoTimes<SavingsReportView>;
/** `POST /workspaces/:ws/usage/requests/:id/feedback`: the stored label. */
export type Feedback = IsoTimes<FeedbackView>;

/** A step of an agent definition (docs/agents.md), as saved. */
export type AgentStep = AgentStepDefinitionView;
export type AgentLimits = AgentLimitsView;
export type AgentDefinition = AgentDefinitionView;
export type AgentVersion = IsoTimes<AgentVersionView>;
export type Agent = IsoTimes<AgentView>;
/** `GET /agents/:name`: the agent and every saved version. */
export type AgentWithVersions = IsoTimes<AgentWithVersionsView>;
export type ExecutionError = ExecutionErrorView;
export type ExecutionStep = IsoTimes<ExecutionStepView>;
export type Execution = IsoTimes<ExecutionView>;
/** `GET /executions/:id`: the execution and its steps. */
export type ExecutionWithSteps = IsoTimes<ExecutionWithStepsView>;
/** The agent form of `_meta` on a run's answer. */
export type AgentMeta = AgentMetaView;

/** A routed answer's `_meta`, as the playground shows it (chat and embeddings). */
export type RouterMeta = RouterMetaView;
/** `POST /workspaces/:ws/playground/embeddings`: its body and OpenAI's list it answers. */
export type PlaygroundEmbeddingsRequest = PlaygroundEmbeddingsRequestView;
export type PlaygroundEmbeddings = PlaygroundEmbeddingsView;

/** Settings → Providers and Settings → Models (src/dashboard/provider-api-types.ts). */
export type ProviderPreset = ProviderPresetView;
/** An owner's credentials for a provider: never the key, only its last 4 characters. */
export type ProviderCredential = IsoTimes<ProviderCredentialApiView>;
export type ProviderList = IsoTimes<ProviderListView>;
export type SavedProvider = IsoTimes<SavedProviderView>;
export type ProviderTest = ProviderTestView;
export type CustomModel = IsoTimes<CustomModelView>;
export type SavedCustomModel = IsoTimes<SavedCustomModelView>;
