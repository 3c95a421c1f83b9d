import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeFailure } from './api-client.ts';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** The refused call's status, to tell "not configured" (404) from a failure. */
  status: number | undefined;
  loading: boolean;
  reload(): void;
}

/** Loads once per change of `key` (and on reload); the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<Omit<Loaded<T>, 'reload'>>({
    data: undefined,
    error: undefined,
    status: undefined,
    loading: true,
  });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    // A reload keeps showing what it had until the answer replaces it, without a "Loading…" line
    // that pushes the page about.
    setState((previous) => ({ ...previous, loading: previous.data === undefined }));
    load().then(
      (data) => current && setState({ data, error: undefined, status: undefined, loading: false }),
      (error: unknown) =>
        current &&
        setState({
          data: undefined,
          error: describeFailure(error),
          status: (error as { status?: number }).status,
          loading: false,
        }),
    );
    return () => {
      current = false;
    };
    // `load` is a new closure on every render; `key` names what it depends on.
  }, [key, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...state, reload };
}
