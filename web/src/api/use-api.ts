import { useCallback, useEffect, useRef, useState } from 'react';
import { useSession } from '../session/session-context';
import { ApiError } from './client';

export interface ApiQuery<T> {
  readonly data: T | undefined;
  readonly error: ApiError | null;
  readonly loading: boolean;
  reload(): void;
}

const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, { message: error instanceof Error ? error.message : String(error), type: 'client_error', code: 'client_error' });

/**
 * GETs `path` (null: nothing to fetch) and re-fetches when it changes or on `reload()`.
 * Keeps the previous data while re-fetching, so lists do not flash.
 */
export function useApi<T>(path: string | null): ApiQuery<T> {
  const { api } = useSession();
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const [generation, setGeneration] = useState(0);
  const lastPath = useRef<string | null>(null);

  useEffect(() => {
    if (path === null) {
      setLoading(false);
      return;
    }
    if (lastPath.current !== path) setData(undefined);
    lastPath.current = path;
    const controller = new AbortController();
    setLoading(true);
    api.get<T>(path, controller.signal).then(
      (value) => {
        setData(value);
        setError(null);
        setLoading(false);
      },
      (reason: unknown) => {
        if (controller.signal.aborted) return;
        setError(asApiError(reason));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [api, path, generation]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}

/** Lists come as an array, or as an object holding one (`{ data: [...] }`, `{ routers: [...] }`). */
export function listOf<T>(value: unknown): readonly T[] {
  if (Array.isArray(value)) return value as T[];
  if (typeof value === 'object' && value !== null) {
    for (const entry of Object.values(value)) if (Array.isArray(entry)) return entry as T[];
  }
  return [];
}
