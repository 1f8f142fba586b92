import type { FastifyRequest } from 'fastify';
import type { Session } from '../../auth/sessions.js';
import { ISO_TIME_FIELDS, type IsoTimes } from '../../dashboard/dashboard-api-types.js';
import type { DashboardServices } from '../../dashboard/dashboard-services.js';
import type { Workspace, WorkspaceRole } from '../../dashboard/workspaces.js';
import { errors } from '../../lib/errors.js';
import type { AppDependencies } from '../dependencies.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in dashboard session; null on sign-up and sign-in. */
    dashboardSession: Session | null;
  }
  interface FastifyContextConfig {
    /** Dashboard route that needs no session and no CSRF token (sign-up, sign-in). @default false */
    dashboardPublic?: boolean;
  }
}

/** What every dashboard route file receives. */
export interface DashboardContext {
  readonly deps: AppDependencies;
  readonly services: DashboardServices;
}

export const DASHBOARD_PREFIX = '/api/dashboard';

export function sessionOf(request: FastifyRequest): Session {
  const session = request.dashboardSession;
  if (session === null) throw errors.sessionRequired();
  return session;
}

/** The `:ws` workspace of the path, if the signed-in user may act in it with at least `minimum`. */
export function workspaceOf(request: FastifyRequest, services: DashboardServices, minimum: WorkspaceRole = 'viewer'): Promise<Workspace> {
  const { ws } = request.params as { ws: string };
  return services.workspaces.access(sessionOf(request).userId, ws, minimum);
}

const TIME_FIELDS: ReadonlySet<string> = new Set(ISO_TIME_FIELDS);

/** Services speak epoch milliseconds; the API answers ISO 8601 (docs/dashboard-api.md, Conventions). */
export function withIsoTimes<T>(value: T): IsoTimes<T> {
  if (Array.isArray(value)) return value.map((item: unknown) => withIsoTimes(item)) as IsoTimes<T>;
  if (typeof value !== 'object' || value === null) return value as IsoTimes<T>;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    out[key] = TIME_FIELDS.has(key) && typeof field === 'number' ? new Date(field).toISOString() : withIsoTimes(field);
  }
  return out as IsoTimes<T>;
}
