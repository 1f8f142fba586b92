import { outboxFor } from './mail-outbox.js';

/** A browser-like client of the dashboard API: keeps the session cookie and sends the CSRF token. */
export interface DashboardResponse<T = any> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export class DashboardClient {
  cookie: string | undefined;
  csrfToken: string | undefined;
  userId = '';

  constructor(readonly origin: string, readonly extraHeaders: Record<string, string> = {}) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<DashboardResponse<T>> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        ...this.extraHeaders,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie === undefined ? {} : { cookie: this.cookie }),
        ...(this.csrfToken === undefined || method === 'GET' ? {} : { 'x-csrf-token': this.csrfToken }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie !== null) {
      const pair = setCookie.split(';')[0] ?? '';
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    if (parsed !== null && typeof parsed === 'object' && 'csrfToken' in parsed) this.csrfToken = String(parsed.csrfToken);
    if (parsed !== null && typeof parsed === 'object' && 'user' in parsed) this.userId = String((parsed.user as { id: string }).id);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get = <T = any>(path: string) => this.request<T>('GET', path);
  post = <T = any>(path: string, body?: unknown) => this.request<T>('POST', path, body ?? {});
  patch = <T = any>(path: string, body: unknown) => this.request<T>('PATCH', path, body);
  delete = <T = any>(path: string) => this.request<T>('DELETE', path);

  /**
   * Signs up as a person does: the form (202, a link mailed), then the link from the gateway's outbox with the same
   * password, which creates the account and signs in (201 with the session). Answers the first refusal, else the
   * link's answer; without an outbox for this origin (a gateway not started by the harness), the form's.
   */
  async signUp(email: string, password = 'a long enough password') {
    const requested = await this.requestSignUp(email, password);
    const token = requested.status === 202 ? outboxFor(this.origin)?.latestToken(email) : undefined;
    return token === undefined ? requested : this.verify(token, password);
  }
  /** Only the sign-up form: 202 and a mail, or the refusal. */
  requestSignUp(email: string, password = 'a long enough password') {
    return this.post('/api/dashboard/auth/signup', { email, password });
  }
  /** The mailed link's page: its token and the password chosen at sign-up. */
  verify(token: string, password = 'a long enough password') {
    return this.post('/api/dashboard/auth/verify', { token, password });
  }
  signIn(email: string, password = 'a long enough password') {
    return this.post('/api/dashboard/auth/signin', { email, password });
  }
  /** The personal workspace's base path. */
  get ws(): string {
    return `/api/dashboard/workspaces/${this.userId}`;
  }
}
