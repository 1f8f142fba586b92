import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError, createApiClient, type ApiClient } from '../api/client';
import type { AuthResponse, Session, SignUpResponse, Workspace } from '../api/types';

const WORKSPACE_STORAGE_KEY = 'modelport.workspace';

export interface SessionState {
  readonly api: ApiClient;
  /** `undefined` while the first session check runs; `null` when signed out. */
  readonly session: Session | null | undefined;
  /** The error of the first session check, when the server could not be reached. */
  readonly sessionError: ApiError | null;
  readonly workspace: Workspace | null;
  selectWorkspace(id: string): void;
  refresh(): Promise<Session | null>;
  signIn(email: string, password: string): Promise<void>;
  /** Mails a confirmation link; signs nobody in. */
  signUp(email: string, password: string): Promise<void>;
  /** The mailed link's token and the password chosen at sign-up: creates the account and signs in. */
  verify(token: string, password: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

/** The signed-in user, their workspaces, the chosen workspace and the API client that carries the CSRF token. */
export function SessionProvider({ children }: { readonly children: ReactNode }) {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [sessionError, setSessionError] = useState<ApiError | null>(null);
  const [workspaceId, setWorkspaceId] = useState<string | null>(() => localStorage.getItem(WORKSPACE_STORAGE_KEY));
  const expiredRef = useRef<() => void>(() => undefined);
  const api = useMemo(() => createApiClient({ onSessionExpired: () => expiredRef.current() }), []);
  expiredRef.current = () => {
    api.setCsrfToken(null);
    setSession(null);
  };

  const refresh = useCallback(async (): Promise<Session | null> => {
    try {
      const next = await api.get<Session>('/session');
      api.setCsrfToken(next.csrfToken);
      setSession(next);
      setSessionError(null);
      return next;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setSession(null);
        return null;
      }
      setSessionError(error instanceof ApiError ? error : new ApiError(0, { message: String(error), type: 'network_error', code: 'network_error' }));
      setSession(null);
      return null;
    }
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const authenticate = useCallback(
    async (path: string, body: Record<string, string>) => {
      const response = await api.send<AuthResponse>('POST', path, body);
      api.setCsrfToken(response.csrfToken);
      await refresh();
    },
    [api, refresh],
  );

  const workspace = useMemo(() => {
    const workspaces = session?.workspaces ?? [];
    return workspaces.find((candidate) => candidate.id === workspaceId) ?? workspaces.find((candidate) => candidate.kind === 'personal') ?? workspaces[0] ?? null;
  }, [session, workspaceId]);

  const value = useMemo<SessionState>(
    () => ({
      api,
      session,
      sessionError,
      workspace,
      selectWorkspace(id: string) {
        localStorage.setItem(WORKSPACE_STORAGE_KEY, id);
        setWorkspaceId(id);
      },
      refresh,
      signIn: (email, password) => authenticate('/auth/signin', { email, password }),
      async signUp(email, password) {
        await api.send<SignUpResponse>('POST', '/auth/signup', { email, password });
      },
      verify: (token, password) => authenticate('/auth/verify', { token, password }),
      async signOut() {
        try {
          await api.send('POST', '/auth/signout');
        } finally {
          api.setCsrfToken(null);
          setSession(null);
        }
      },
    }),
    [api, session, sessionError, workspace, refresh, authenticate],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The chosen workspace; only under the signed-in layout, which guarantees one. */
export function useWorkspace(): Workspace {
  const { workspace } = useSession();
  if (workspace === null) throw new Error('no workspace');
  return workspace;
}

/** Whether the current role may change things (viewers only look). */
export const canWrite = (workspace: Workspace): boolean => workspace.role !== 'viewer';
