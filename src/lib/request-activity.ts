/**
 * A count of requests starting and ending, for the idle collector (idle-collector.ts): a request's start and its end
 * each add one, so a count unchanged between two checks means no request began or finished in between. A counter
 * rather than a clock or a set of requests in flight: two increments per request, nothing allocated. Health and
 * metrics probes are not counted (a load balancer's probe every few seconds must not keep a process "busy").
 */
export interface RequestActivity {
  /** Starts and ends seen so far. */
  readonly events: number;
  /** A request started or ended; `url` as received (a probe is recognised by its exact path). */
  note(url: string): void;
}

export function createRequestActivity(): RequestActivity {
  let events = 0;
  return {
    get events() {
      return events;
    },
    note(url) {
      // Two comparisons, not a Set: a request's URL is a new string each time, and a Set would hash it.
      if (url !== '/healthz' && url !== '/metrics') events += 1;
    },
  };
}
