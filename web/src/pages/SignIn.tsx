import { useEffect, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type SessionView } from '../api';
import { useSession } from '../session';
import { Failure } from './common';

/** Sign-up and sign-in alike: an address, then the code mailed to it (or the mail's link). */
export function SignIn() {
  const { t, i18n } = useTranslation();
  const { signedIn } = useSession();
  // The mail's link carries the address and code in the fragment, which never reaches a server;
  // a staff invitation's link, the address alone. Read as the page is first drawn (the field is
  // never shown empty first), then taken off the address bar.
  const [link] = useState(() => {
    const params = new URLSearchParams(window.location.hash.slice(1));
    return { address: params.get('email'), code: params.get('code') };
  });
  const [email, setEmail] = useState(link.address ?? '');
  const [code, setCode] = useState(link.code && link.address ? link.code : '');
  const [step, setStep] = useState<'email' | 'code'>('email');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const codeInput = useRef<HTMLInputElement>(null);

  const verify = async (address: string, value: string) => {
    setBusy(true);
    try {
      signedIn(await api<SessionView>('/api/auth/verify', { method: 'POST', body: { email: address, code: value } }));
    } catch (err) {
      setError((err as Error).message);
      setStep('code');
    } finally {
      setBusy(false);
    }
  };

  // Off the address bar before the page is painted (nothing shows or keeps a code there).
  useLayoutEffect(() => {
    if (link.address) window.history.replaceState(null, '', window.location.pathname);
  }, [link]);
  // A link with a code signs in at once; the invitation's (the address alone) waits for a code.
  useEffect(() => {
    if (link.address && link.code) void verify(link.address, link.code);
  }, []);

  useEffect(() => {
    if (step === 'code') codeInput.current?.focus();
  }, [step]);

  const send = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('/api/auth/sign-in', { method: 'POST', body: { email, locale: i18n.language === 'pt' ? 'pt' : 'en' } });
      setStep('code');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const submitCode = (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    void verify(email, code);
  };

  return (
    <main id="main" className="page narrow">
      <h1>{t('signIn.title')}</h1>
      <p>{t('signIn.lead')}</p>
      <Failure message={error} />
      {step === 'email' ? (
        <form onSubmit={send} className="stack">
          <label htmlFor="email">{t('signIn.email')}</label>
          <input id="email" name="email" type="email" autoComplete="email" required maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
          <button type="submit" disabled={busy}>
            {t('signIn.send')}
          </button>
        </form>
      ) : (
        <form onSubmit={submitCode} className="stack">
          <p role="status">{t('signIn.sent', { email })}</p>
          <label htmlFor="code">{t('signIn.code')}</label>
          <input
            id="code"
            name="code"
            ref={codeInput}
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d{6}"
            maxLength={6}
            required
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
          />
          <button type="submit" disabled={busy}>
            {busy ? t('signIn.verifying') : t('signIn.verify')}
          </button>
          <button type="button" className="link" onClick={() => setStep('email')}>
            {t('signIn.otherAddress')}
          </button>
        </form>
      )}
    </main>
  );
}
