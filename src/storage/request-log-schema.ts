import type { Selectable } from 'kysely';

/** Epoch milliseconds, as every table of schema.ts keeps times. */
type Millis = number;

/** A routed call's `_meta` (JSON columns) and, when its router logs bodies, its bodies (0014). */
export interface RequestLogsTable {
  request_id: string;
  owner_id: string;
  router_id: string;
  created_at: Millis;
  routing: string;
  attempts: string;
  carbon: string | null;
  prices: string | null;
  request_body: string | null;
  response_body: string | null;
  bodies_truncated: number;
  bodies_expire_at: Millis | null;
  bodies_expired: number;
}

/**
 * A routed call's detail as the pipeline hands it over, turned into a row (JSON, redacted bodies) when its batch is
 * written, off the request path; its request id, owner and time are the usage record's.
 */
export interface NewRequestLog {
  readonly router_id: string;
  readonly routing: unknown;
  readonly attempts: readonly unknown[];
  readonly carbon: unknown;
  readonly prices: unknown;
  readonly bodies?: NewRequestBodies | undefined;
}
/** The bodies of a call whose router logs them, as objects or text; `redact` removes secrets from their JSON text. */
export interface NewRequestBodies {
  readonly request: unknown;
  readonly response: unknown;
  readonly maxBytes: number;
  readonly retentionDays: number;
  readonly redact: (text: string) => string;
}
export type RequestLogRow = Selectable<RequestLogsTable>;
