/**
 * A staff resource read again every `intervalMs` while the page is visible: the polling stops when
 * the tab is hidden (document.visibilityState) and starts again, with a read at once, when it is
 * shown; it can be paused by the reader (an auto-updating page must be stoppable). One read at a
 * time: the next is planned when the last has answered. A 401 asks the app for the session again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { api } from '../../api';
import { useSession } from '../../session';
import { failureOf, staffPath, type Failure } from '../api';

export type PollState = 'running' | 'hidden' | 'paused';

export function usePolledResource<T>(path: string, intervalMs: number) {
  const { refresh } = useSession();
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [loading, setLoading] = useState(false);
  const [readAt, setReadAt] = useState<Date | null>(null);
  const [hidden, setHidden] = useState(() => document.visibilityState === 'hidden');
  const [paused, setPaused] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  const inFlight = useRef(false);
  const alive = useRef(true);
  const url = staffPath(path);

  const read = useCallback(async () => {
    if (inFlight.current) return;
    inFlight.current = true;
    setLoading(true);
    try {
      const answer = await api<T>(url);
      if (!alive.current) return;
      setData(answer);
      setFailure(null);
      setReadAt(new Date());
    } catch (err) {
      if (!alive.current) return;
      const f = failureOf(err);
      setFailure(f);
      if (f.kind === 'signedOut') await refresh();
    } finally {
      inFlight.current = false;
      if (alive.current) setLoading(false);
    }
  }, [url, refresh]);

  useEffect(() => {
    alive.current = true;
    const onVisibility = () => setHidden(document.visibilityState === 'hidden');
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      alive.current = false;
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, []);

  // While visible and not paused: a read at once, then one every interval after the last answered.
  useEffect(() => {
    if (hidden || paused) return;
    let stopped = false;
    const loop = async () => {
      await read();
      if (!stopped) timer.current = window.setTimeout(() => void loop(), intervalMs);
    };
    void loop();
    return () => {
      stopped = true;
      window.clearTimeout(timer.current);
    };
  }, [hidden, paused, read, intervalMs]);

  const state: PollState = paused ? 'paused' : hidden ? 'hidden' : 'running';
  return { data, failure, loading, readAt, state, read, setPaused };
}
