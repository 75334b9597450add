/**
 * /staff/members (staff.manage): the members (address, roles, invited or active), an invitation,
 * a member's roles changed, a member removed (confirmed first), and the audit log. A refusal (the
 * last active owner, 409 last_owner) is told beside the list, in the reader's language.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../session';
import { useStaff } from '../access';
import { failureOf, useStaffResource, type Failure } from '../api';
import { formatDateTime, sectionNs, STAFF_NS } from '../i18n';
import { Address, DataTable, ErrorState, LoadingState, PageHeader, Panel, RoleTags, useConfirm, useFailureText, useNotify, type Column } from '../ui';
import { membersApi, type StaffMember } from './api';
import { AuditLog } from './AuditLog';
import { InviteForm } from './InviteForm';
import { RolesDialog } from './RolesDialog';

const NS = sectionNs('members');

export default function MembersPage() {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const { me, reload: reloadMe } = useStaff();
  const { refresh } = useSession();
  const notify = useNotify();
  const confirm = useConfirm();
  const failureText = useFailureText();
  const members = useStaffResource<StaffMember[]>('/members');
  const [auditVersion, setAuditVersion] = useState(0);
  const [editing, setEditing] = useState<StaffMember | null>(null);
  const [refusal, setRefusal] = useState<{ failure: Failure; email: string } | null>(null);

  const changed = async () => {
    setAuditVersion((v) => v + 1);
    await members.reload();
  };

  const remove = async (m: StaffMember) => {
    setRefusal(null);
    const self = m.email === me.email;
    const ok = await confirm({
      title: t('remove.title', { email: m.email }),
      body: <p>{self ? t('remove.bodySelf') : t('remove.body', { email: m.email })}</p>,
      confirmLabel: t('remove.confirm'),
      danger: true,
    });
    if (!ok) return;
    try {
      const removed = await membersApi.remove(m.email);
      if (self) {
        await refresh(); // every session of the address has ended: the app asks the reader to sign in
        return;
      }
      notify(t('remove.removed', { email: removed.email, count: removed.sessionsEnded }));
      await changed();
      // The row is gone, and its button with it: the focus goes to the page's heading.
      if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
    } catch (err) {
      setRefusal({ failure: failureOf(err), email: m.email });
    }
  };

  const rolesSaved = async (saved: StaffMember | null) => {
    const who = editing;
    setEditing(null);
    if (!saved) {
      notify(t('rolesDialog.unchanged'), 'info');
      return;
    }
    notify(t('rolesDialog.saved', { email: saved.email }));
    void changed();
    // One's own roles: the navigation follows (a section may close, this one included).
    if (who?.email === me.email) await reloadMe();
  };

  const columns: Column<StaffMember>[] = [
    {
      header: t('list.email'),
      rowHeader: true,
      width: 26,
      cell: (m) => (
        <>
          <Address email={m.email} />
          {m.email === me.email ? <span className="muted"> {t('list.you')}</span> : null}
        </>
      ),
    },
    { header: t('list.roles'), width: 22, cell: (m) => <RoleTags roles={m.roles} /> },
    {
      header: t('list.status'),
      width: 24,
      cell: (m) => (
        <>
          <span className={`staff-status ${m.status}`}>{shell(`status.${m.status}`)}</span>
          <br />
          <span className="muted small">
            {m.status === 'active' && m.activatedAt
              ? t('list.activeSince', { date: formatDateTime(m.activatedAt, i18n.language) })
              : t('list.invitedOn', { date: formatDateTime(m.invitedAt, i18n.language), who: m.invitedBy === 'cli' || m.invitedBy === 'seed' ? t(`audit.actors.${m.invitedBy}`) : m.invitedBy })}
          </span>
        </>
      ),
    },
    {
      header: t('list.actions'),
      className: 'actions',
      width: 28,
      cell: (m) => (
        <div className="staff-actions">
          <button type="button" className="secondary" onClick={() => { setRefusal(null); setEditing(m); }}>
            {t('list.changeRoles')}
            <span className="visually-hidden">{t('list.of', { email: m.email })}</span>
          </button>
          <button type="button" className="secondary danger-outline" onClick={() => void remove(m)}>
            {t('list.remove')}
            <span className="visually-hidden"> {m.email}</span>
          </button>
        </div>
      ),
    },
  ];

  const list = members.data;
  return (
    <>
      <PageHeader title={t('heading')} lead={t('lead')} />
      <Panel title={t('list.title')} actions={list ? <span className="muted">{t('list.count', { count: list.length })}</span> : null}>
        {refusal ? (
          <div role="alert" className="staff-refusal" data-testid="members-refusal">
            <p className="error">{failureText(refusal.failure, { email: refusal.email })}</p>
            <button type="button" className="link" onClick={() => setRefusal(null)}>
              {shell('ui.dismiss')}
            </button>
          </div>
        ) : null}
        {members.failure ? (
          <ErrorState failure={members.failure} onRetry={() => void members.reload()} />
        ) : !list ? (
          <LoadingState />
        ) : (
          <DataTable fixed caption={t('list.caption')} columns={columns} rows={list} rowKey={(m) => m.email} empty={t('list.none')} rowAttributes={(m) => ({ 'data-member': m.email })} />
        )}
      </Panel>
      <InviteForm onInvited={() => void changed()} />
      <AuditLog version={auditVersion} />
      <RolesDialog
        member={editing}
        onClose={() => setEditing(null)}
        onSaved={(saved) => void rolesSaved(saved)}
      />
    </>
  );
}
