import type { RequestLogRow } from '../storage/schema.js';
import type { UsageRequestView } from './dashboard-api-types.js';
import type { RequestDetailView, RequestLogEntryView } from './request-log-api-types.js';

/** A request log row with its usage row, as the dashboard shows it (JSON columns parsed back). */
export function requestLogEntry(request: UsageRequestView, row: RequestLogRow | undefined): RequestLogEntryView {
  if (row === undefined) return { request, detail: null, bodies: null, bodiesExpired: false };
  const kept = row.request_body !== null || row.response_body !== null;
  return {
    request,
    detail: {
      routing: parsed<RequestDetailView['routing']>(row.routing) ?? {},
      attempts: parsed<RequestDetailView['attempts']>(row.attempts) ?? [],
      carbon: row.carbon === null ? null : parsed<RequestDetailView['carbon']>(row.carbon),
      prices: row.prices === null ? null : parsed<RequestDetailView['prices']>(row.prices),
    },
    bodies: kept ? { request: row.request_body, response: row.response_body, truncated: row.bodies_truncated === 1 } : null,
    bodiesExpired: !kept && row.bodies_expired === 1,
  };
}

/** JSON the gateway itself wrote (the `_meta` parts), read back for display as the view's types. */
function parsed<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
