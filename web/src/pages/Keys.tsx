import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { KEY_SCOPES } from '../../../models/news/key-scopes.rules';
import { api, type ApiKey } from '../api';
import { formatDate } from '../i18n';
import { Failure, Loading, TableBox, useResource } from './common';

type Created = ApiKey & { key: string };

/** The key itself, shown once, with copy. */
function ShownOnce({ created, onDone }: { created: Created; onDone(): void }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  return (
    <section className="notice" aria-labelledby="shown-once">
      <h2 id="shown-once">{t('keys.shownOnce')}</h2>
      <div className="secret">
        <code data-testid="new-key">{created.key}</code>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(created.key).then(() => setCopied(true), () => setCopied(false));
          }}
        >
          {copied ? t('keys.copied') : t('keys.copy')}
        </button>
      </div>
      <button type="button" className="secondary" onClick={onDone}>
        {t('keys.stored')}
      </button>
    </section>
  );
}

function CreateForm({ onCreated, preset }: { onCreated(k: Created): void; preset?: ApiKey | undefined }) {
  const { t } = useTranslation();
  const [name, setName] = useState(preset?.name ?? '');
  const [expiry, setExpiry] = useState('none');
  const [date, setDate] = useState('');
  const [scopes, setScopes] = useState<string[]>(preset?.scopes ?? ['read:articles']);
  const [mode, setMode] = useState<'live' | 'test'>(preset?.mode ?? 'live');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<Created>('/api/account/keys', { method: 'POST', body: { name, expiry: expiry === 'date' ? date : expiry, scopes, mode } });
      onCreated(created);
      setName('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="card grid-form" aria-labelledby="create-key">
      <h2 id="create-key">{t('keys.create')}</h2>
      <Failure message={error} />
      <label htmlFor="key-name">{t('keys.name')}</label>
      <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="key-expiry">{t('keys.expiry')}</label>
      <select id="key-expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
        <option value="none">{t('keys.expiryNone')}</option>
        <option value="30d">{t('keys.expiry30')}</option>
        <option value="90d">{t('keys.expiry90')}</option>
        <option value="1y">{t('keys.expiry1y')}</option>
        <option value="date">{t('keys.expiryDate')}</option>
      </select>
      {expiry === 'date' ? (
        <>
          <label htmlFor="key-date">{t('keys.date')}</label>
          <input id="key-date" type="date" required value={date} min={new Date().toISOString().slice(0, 10)} onChange={(e) => setDate(e.target.value)} />
        </>
      ) : null}
      <fieldset>
        <legend>{t('keys.scopes')}</legend>
        {KEY_SCOPES.map((s) => (
          <label key={s} className="check">
            <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))} />
            <code>{s}</code>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('keys.mode')}</legend>
        {(['live', 'test'] as const).map((m) => (
          <label key={m} className="check">
            <input type="radio" name="mode" value={m} checked={mode === m} onChange={() => setMode(m)} />
            {t(`keys.${m}`)}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy || scopes.length === 0}>
        {t('keys.submit')}
      </button>
    </form>
  );
}

/** A confirmation in a modal dialog (the platform's own <dialog>: focus trapped, Escape closes). */
function useConfirm() {
  const dialog = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState('');
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const ask = (message: string) =>
    new Promise<boolean>((resolve) => {
      setText(message);
      resolver.current = resolve;
      dialog.current?.showModal();
    });
  const close = (ok: boolean) => {
    dialog.current?.close();
    resolver.current?.(ok);
    resolver.current = null;
  };
  return { ask, close, dialog, text };
}

export function Keys() {
  const { t, i18n } = useTranslation();
  const keys = useResource<ApiKey[]>('/api/account/keys');
  const [created, setCreated] = useState<Created | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [rotating, setRotating] = useState<{ old: ApiKey; step: 1 | 2 | 3 | 4; fresh?: Created } | null>(null);
  const confirm = useConfirm();

  const revoke = async (k: ApiKey): Promise<boolean> => {
    if (!(await confirm.ask(t('keys.confirmRevoke', { name: k.name, prefix: k.prefix })))) return false;
    try {
      await api(`/api/account/keys/${k.id}`, { method: 'DELETE' });
      setStatus(t('keys.revoked_ok'));
      await keys.reload();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    }
  };

  return (
    <>
      <h1>{t('keys.title')}</h1>
      <p>{t('keys.lead')}</p>
      <Failure message={keys.error ?? error} />
      {status ? (
        <p role="status" className="ok">
          {status}
        </p>
      ) : null}
      {created ? <ShownOnce created={created} onDone={() => setCreated(null)} /> : null}
      {rotating ? (
        <section className="card" aria-labelledby="rotation">
          <h2 id="rotation">{t('keys.rotation.title', { name: rotating.old.name })}</h2>
          <ol className="steps">
            <li aria-current={rotating.step === 1 ? 'step' : undefined}>{t('keys.rotation.step1')}</li>
            <li aria-current={rotating.step === 2 ? 'step' : undefined}>{t('keys.rotation.step2')}</li>
            <li aria-current={rotating.step === 3 ? 'step' : undefined}>{t('keys.rotation.step3')}</li>
            <li aria-current={rotating.step === 4 ? 'step' : undefined}>{t('keys.rotation.step4')}</li>
          </ol>
          {rotating.step === 1 ? (
            <button
              type="button"
              onClick={() => {
                void api<Created>('/api/account/keys', { method: 'POST', body: { name: rotating.old.name, scopes: rotating.old.scopes, mode: rotating.old.mode } }).then(
                  async (fresh) => {
                    setCreated(fresh);
                    setRotating({ ...rotating, step: 2, fresh });
                    await keys.reload();
                  },
                  (err: Error) => setError(err.message),
                );
              }}
            >
              {t('keys.rotation.createNew')}
            </button>
          ) : rotating.step === 2 ? (
            <button type="button" onClick={() => setRotating({ ...rotating, step: 3 })}>
              {t('keys.rotation.switched')}
            </button>
          ) : (
            <>
            <p role="status">
              {t('keys.lastUsed')}: {(() => {
                const fresh = keys.data?.find((k) => k.id === rotating.fresh?.id);
                return fresh?.lastUsedAt ? formatDate(fresh.lastUsedAt, i18n.language) : t('keys.never');
              })()}{' '}
              <button type="button" className="link" onClick={() => void keys.reload()}>
                {t('app.refresh')}
              </button>
            </p>
            <button
              type="button"
              className="danger"
              onClick={() => {
                void revoke(rotating.old).then((done) => {
                  if (done) {
                    setRotating(null);
                    setStatus(t('keys.rotation.done'));
                  }
                });
              }}
            >
              {t('keys.rotation.revokeOld')}
            </button>
            </>
          )}
          <button type="button" className="link" onClick={() => setRotating(null)}>
            {t('keys.cancel')}
          </button>
        </section>
      ) : null}
      <CreateForm
        onCreated={(k) => {
          setCreated(k);
          setStatus(null);
          void keys.reload();
        }}
      />
      {keys.data === undefined ? (
        <Loading />
      ) : keys.data.length === 0 ? (
        <p>{t('keys.none')}</p>
      ) : (
        <TableBox label={t('keys.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('keys.name')}</th>
                <th scope="col">{t('keys.prefix')}</th>
                <th scope="col">{t('keys.mode')}</th>
                <th scope="col">{t('keys.scopes')}</th>
                <th scope="col">{t('keys.created')}</th>
                <th scope="col">{t('keys.lastUsed')}</th>
                <th scope="col">{t('keys.expiry')}</th>
                <th scope="col">{t('keys.status')}</th>
                <th scope="col">{t('keys.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>
                    <span className={`badge ${k.mode}`}>{t(`keys.${k.mode}`)}</span>
                  </td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{formatDate(k.createdAt, i18n.language)}</td>
                  <td>{k.lastUsedAt ? formatDate(k.lastUsedAt, i18n.language) : t('keys.never')}</td>
                  <td>{k.expiresAt ? formatDate(k.expiresAt, i18n.language) : t('keys.expiryNone')}</td>
                  <td>
                    <span className={`state ${k.status}`}>{t(`keys.${k.status}`)}</span>
                  </td>
                  <td className="actions">
                    {k.status === 'active' ? (
                      <>
                        <button type="button" className="secondary" onClick={() => setRotating({ old: k, step: 1 })}>
                          {t('keys.rotate')}
                        </button>
                        <button type="button" className="danger" onClick={() => void revoke(k)}>
                          {t('keys.revoke')}
                        </button>
                      </>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableBox>
      )}
      <dialog ref={confirm.dialog} aria-labelledby="confirm-text" onCancel={() => confirm.close(false)}>
        <p id="confirm-text">{confirm.text}</p>
        <div className="row">
          <button type="button" className="secondary" onClick={() => confirm.close(false)}>
            {t('keys.cancel')}
          </button>
          <button type="button" className="danger" onClick={() => confirm.close(true)}>
            {t('keys.revoke')}
          </button>
        </div>
      </dialog>
    </>
  );
}
