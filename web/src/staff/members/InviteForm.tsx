/** An invitation: an address, its roles, and the language of the mail it gets (POST /api/staff/members). */
import { useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { failureOf, type Failure } from '../api';
import { sectionNs } from '../i18n';
import type { StaffRole } from '../roles';
import { Panel, useFailureText, useNotify } from '../ui';
import { membersApi, type StaffMember } from './api';
import { RoleCheckboxes } from './RoleCheckboxes';

const NS = sectionNs('members');

export function InviteForm({ onInvited }: { onInvited: (member: StaffMember) => void }) {
  const { t, i18n } = useTranslation(NS);
  const notify = useNotify();
  const failureText = useFailureText();
  const id = useId();
  const [email, setEmail] = useState('');
  const [roles, setRoles] = useState<StaffRole[]>([]);
  const [locale, setLocale] = useState<'en' | 'pt'>(i18n.language === 'pt' ? 'pt' : 'en');
  const [rolesMissing, setRolesMissing] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const emailInput = useRef<HTMLInputElement>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    if (roles.length === 0) {
      setRolesMissing(true);
      form.current?.querySelector<HTMLInputElement>('input[name="roles"]')?.focus();
      return;
    }
    setBusy(true);
    try {
      const member = await membersApi.invite({ email: email.trim(), roles, locale });
      notify(t('invite.sent', { email: member.email }));
      setEmail('');
      setRoles([]);
      onInvited(member);
      emailInput.current?.focus();
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Panel title={t('invite.title')}>
      <form ref={form} className="staff-invite" onSubmit={(e) => void submit(e)}>
        <div className="staff-invite-fields">
          <div className="staff-field">
            <label htmlFor={`${id}-email`}>{t('invite.email')}</label>
            <input
              ref={emailInput}
              id={`${id}-email`}
              name="email"
              type="email"
              autoComplete="off"
              required
              maxLength={254}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-describedby={`${id}-email-help`}
            />
            <p id={`${id}-email-help`} className="muted staff-help">
              {t('invite.emailHelp')}
            </p>
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-locale`}>{t('invite.locale')}</label>
            <select id={`${id}-locale`} name="locale" value={locale} onChange={(e) => setLocale(e.target.value === 'pt' ? 'pt' : 'en')}>
              <option value="en" lang="en">
                English
              </option>
              <option value="pt" lang="pt-BR">
                Português
              </option>
            </select>
          </div>
        </div>
        <RoleCheckboxes
          legend={t('invite.roles')}
          value={roles}
          onChange={(next) => {
            setRoles(next);
            if (next.length) setRolesMissing(false);
          }}
          error={rolesMissing ? t('invite.rolesRequired') : null}
        />
        {failure ? (
          <p role="alert" className="error">
            {failureText(failure, { email: email.trim().toLowerCase() })}
          </p>
        ) : null}
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t('invite.sending') : t('invite.submit')}
          </button>
        </div>
      </form>
    </Panel>
  );
}
