/** A member's roles, changed in a dialog (PATCH /api/staff/members/{email}); a refusal (the last owner) is told in it. */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { failureOf, type Failure } from '../api';
import { sectionNs } from '../i18n';
import { orderRoles, type StaffRole } from '../roles';
import { Modal, useFailureText } from '../ui';
import { membersApi, type StaffMember } from './api';
import { RoleCheckboxes } from './RoleCheckboxes';

const NS = sectionNs('members');

export function RolesDialog({ member, onClose, onSaved }: { member: StaffMember | null; onClose: () => void; onSaved: (member: StaffMember | null) => void }) {
  const { t } = useTranslation(NS);
  return (
    <Modal open={member !== null} title={member ? t('rolesDialog.title', { email: member.email }) : ''} onClose={onClose} className="staff-roles-dialog">
      {member ? <RolesForm member={member} onClose={onClose} onSaved={onSaved} /> : null}
    </Modal>
  );
}

function RolesForm({ member, onClose, onSaved }: { member: StaffMember; onClose: () => void; onSaved: (member: StaffMember | null) => void }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation('staff');
  const failureText = useFailureText();
  const [roles, setRoles] = useState<StaffRole[]>(orderRoles(member.roles));
  const [missing, setMissing] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    if (roles.length === 0) {
      setMissing(true);
      return;
    }
    const same = roles.length === member.roles.length && roles.every((r) => member.roles.includes(r));
    if (same) {
      onSaved(null);
      return;
    }
    setBusy(true);
    try {
      onSaved(await membersApi.setRoles(member.email, roles));
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} className="stack">
      <p className="muted">{t('rolesDialog.lead')}</p>
      <RoleCheckboxes
        legend={t('list.roles')}
        value={roles}
        onChange={(next) => {
          setRoles(next);
          if (next.length) setMissing(false);
        }}
        error={missing ? t('invite.rolesRequired') : null}
      />
      {failure ? (
        <p role="alert" className="error staff-dialog-error">
          {failureText(failure, { email: member.email })}
        </p>
      ) : null}
      <div className="staff-dialog-actions">
        <button type="button" className="secondary" onClick={onClose}>
          {shell('ui.cancel')}
        </button>
        <button type="submit" disabled={busy}>
          {busy ? t('rolesDialog.saving') : t('rolesDialog.save')}
        </button>
      </div>
    </form>
  );
}
