/**
 * An answer's id (`chatcmpl-…`, `msg_…`): the request id's random part after the surface's prefix, so it is
 * unguessable and a client's completion id finds the request in the logs and the usage records.
 */
export function completionId(prefix: string, requestId: string): string {
  return `${prefix}${requestId.slice(requestId.indexOf('_') + 1)}`;
}
