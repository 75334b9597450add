/**
 * The audit log (GET /api/staff/audit), newest first, a page at a time: each page's `nextBefore`
 * is where the next (older) one begins, so the cursors of the pages read are kept to go back.
 * `version` changes after every change made on this page: the log shows its newest page again.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStaffResource } from '../api';
import { formatDateTime, sectionNs, STAFF_NS } from '../i18n';
import { Address, DataTable, ErrorState, LoadingState, Pagination, RoleTags, type Column } from '../ui';
import { AUDIT_PAGE_SIZE, type AuditEntry, type AuditPage, type StaffState } from './api';

const NS = sectionNs('members');

/** A console change's body longer than this (characters of JSON) is folded under a summary. */
const CHANGE_INLINE = 120;

/** A change's JSON laid out a field a line (as it is when it was cut, and so is no JSON). */
function readable(change: string): string {
  try {
    return JSON.stringify(JSON.parse(change), null, 1);
  } catch {
    return change;
  }
}

/** Each action's words (`audit.actions.*`); one missing here is shown by its name. */
const ACTION_KEYS: Partial<Record<string, 'invite' | 'activate' | 'roles' | 'remove' | 'consoleChange'>> = {
  'staff.invite': 'invite',
  'staff.activate': 'activate',
  'staff.roles': 'roles',
  'staff.remove': 'remove',
  'console.change': 'consoleChange',
};

export function AuditLog({ version }: { version: number }) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  // cursors[i]: the `before` of page i (undefined: the newest).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [index, setIndex] = useState(0);
  const log = useStaffResource<AuditPage>('/audit', { limit: AUDIT_PAGE_SIZE, before: cursors[index] });
  const { reload } = log;

  // A change on the page: back to the newest entries (read again when already there).
  const seen = useRef(version);
  useEffect(() => {
    if (seen.current === version) return;
    seen.current = version;
    setCursors([undefined]);
    if (index === 0) void reload();
    else setIndex(0);
  }, [version, index, reload]);

  // After a turn of the page the focus goes to the log's heading: the button pressed may now be disabled.
  const turned = useRef(false);
  useEffect(() => {
    if (turned.current && !log.loading) {
      turned.current = false;
      heading.current?.focus();
    }
  }, [log.loading]);
  const turn = (to: number) => {
    turned.current = true;
    setIndex(to);
  };

  const state = (s: StaffState | null) =>
    s ? (
      <div className="staff-state">
        <RoleTags roles={s.roles} />
        <span className={`staff-status ${s.status}`}>{shell(`status.${s.status}`)}</span>
      </div>
    ) : (
      <span className="muted">{t('audit.nobody')}</span>
    );
  const action = (e: AuditEntry) => {
    const key = ACTION_KEYS[e.action];
    if (!key) return <code>{e.action}</code>;
    if (e.action !== 'console.change') return t(`audit.actions.${key}`);
    return (
      <>
        {t(`audit.actions.${key}`)}
        {e.operation ? (
          <>
            <br />
            <code className="staff-operation">{e.operation}</code>
          </>
        ) : null}
      </>
    );
  };
  const member = (e: AuditEntry) => {
    if (e.member) return <Address email={e.member} />;
    const target = Object.entries(e.target ?? {});
    if (target.length === 0) return <span className="muted">—</span>;
    return (
      <ul className="staff-target">
        {target.map(([k, v]) => (
          <li key={k}>
            {k}: <code>{String(v)}</code>
          </li>
        ))}
      </ul>
    );
  };
  const after = (e: AuditEntry) =>
    e.action === 'console.change' ? (
      e.change ? (
        e.change.length <= CHANGE_INLINE ? (
          <code className="staff-change">{e.change}</code>
        ) : (
          <details className="staff-change-more">
            <summary>{t('audit.sent')}</summary>
            <code className="staff-change">{readable(e.change)}</code>
          </details>
        )
      ) : (
        <span className="muted">—</span>
      )
    ) : (
      state(e.after)
    );
  const actor = (who: string) => (who === 'cli' || who === 'seed' ? t(`audit.actors.${who}`) : <Address email={who} />);

  const columns: Column<AuditEntry>[] = [
    { header: t('audit.when'), width: 12, cell: (e) => <time dateTime={e.at}>{formatDateTime(e.at, i18n.language)}</time> },
    { header: t('audit.who'), width: 20, cell: (e) => actor(e.actor) },
    { header: t('audit.what'), width: 14, cell: action },
    { header: t('audit.member'), width: 20, cell: member },
    { header: t('audit.before'), width: 16, cell: (e) => (e.action === 'console.change' ? <span className="muted">—</span> : state(e.before)) },
    { header: t('audit.after'), width: 18, cell: after },
  ];

  const page = log.data;
  return (
    <section className="card staff-panel" aria-labelledby={headingId} aria-busy={log.loading}>
      <div className="staff-panel-head">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          {t('audit.title')}
        </h2>
      </div>
      <p className="muted">{t('audit.lead')}</p>
      {log.failure ? (
        <ErrorState failure={log.failure} onRetry={() => void reload()} />
      ) : !page ? (
        <LoadingState />
      ) : (
        <>
          <DataTable fixed caption={t('audit.caption')} columns={columns} rows={page.entries} rowKey={(e) => e.id} empty={t('audit.none')} rowAttributes={(e) => ({ 'data-audit-id': e.id })} />
          <Pagination
            label={t('audit.pages')}
            page={index + 1}
            hasPrevious={index > 0}
            hasNext={page.nextBefore !== null}
            previousLabel={shell('ui.newer')}
            nextLabel={shell('ui.older')}
            busy={log.loading}
            onPrevious={() => turn(index - 1)}
            onNext={() => {
              const next = page.nextBefore ?? undefined;
              setCursors((c) => [...c.slice(0, index + 1), next]);
              turn(index + 1);
            }}
          />
        </>
      )}
    </section>
  );
}
