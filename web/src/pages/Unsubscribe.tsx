/**
 * The page an unsubscribe link in a reader mail opens (issue 40): it asks before anything changes
 * (mail scanners open links), then posts to the same address, as a mailbox provider's one-click
 * unsubscribe does (RFC 8058). No sign-in: the link is the authority.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { api } from '../api';

export function UnsubscribePage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const [state, setState] = useState<{ kind: 'asking' } | { kind: 'busy' } | { kind: 'done'; list: 'alerts' | 'digest' } | { kind: 'failed'; message: string }>({ kind: 'asking' });

  const confirm = async () => {
    setState({ kind: 'busy' });
    try {
      const done = await api<{ list: 'alerts' | 'digest' }>(`/unsubscribe/${encodeURIComponent(token)}`, { method: 'POST' });
      setState({ kind: 'done', list: done.list });
    } catch (err) {
      setState({ kind: 'failed', message: (err as { status?: number }).status === 404 ? t('unsubscribe.unknown') : (err as Error).message });
    }
  };

  return (
    <main id="main" className="page narrow">
      <h1>{t('unsubscribe.title')}</h1>
      {state.kind === 'done' ? (
        <>
          <p role="status" className="ok">
            {t(`unsubscribe.done.${state.list}`)}
          </p>
          <p>
            <Link to="/account/preferences">{t('unsubscribe.manage')}</Link>
          </p>
        </>
      ) : (
        <>
          <p>{t('unsubscribe.ask')}</p>
          {state.kind === 'failed' ? (
            <p role="alert" className="error">
              {state.message}
            </p>
          ) : null}
          <button type="button" disabled={state.kind === 'busy'} onClick={() => void confirm()}>
            {t('unsubscribe.confirm')}
          </button>
        </>
      )}
    </main>
  );
}
