/** Small pieces the pages share: loading a resource, and showing its failure. */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../api';

export function useResource<T>(path: string): { data: T | undefined; error: string | null; reload(): Promise<void> } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await api<T>(path));
      setError(null);
    } catch (err) {
      setError((err as Error).message);
    }
  }, [path]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

/**
 * An action a card runs on a button: busy while it runs, its message (what `work` answers) or its
 * failure shown after, then `after` (a reload of what it changed).
 */
export function useAction(after: () => Promise<void>): { busy: boolean; status: string | null; error: string | null; act(work: () => Promise<string>): Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setStatus(null);
    try {
      setStatus(await work());
      await after();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, status, error, act };
}

export function Failure({ message }: { message: string | null }) {
  const { t } = useTranslation();
  if (!message) return null;
  return (
    <p role="alert" className="error">
      {t('app.error', { message })}
    </p>
  );
}

export function Loading() {
  const { t } = useTranslation();
  return <p aria-live="polite">{t('app.loading')}</p>;
}

/** A table that scrolls sideways inside its box on a narrow screen, reachable by keyboard. */
export function TableBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
