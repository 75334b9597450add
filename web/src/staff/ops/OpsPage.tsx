/**
 * /staff/ops (issue 38 item 6, platform.ops): the operations overview (GET /api/staff/ops/overview),
 * read again every 10 s while the tab is visible (stopped while hidden, and on the reader's
 * demand): each dependency's health (up or down, with why), each service's (up, degraded with the
 * dependencies it reports down, or down), the running workflows per type and the backlog and
 * pollers of each task queue, and the Temporal UI's lists by family of workflow ids
 * (ticket-bulk-…, news-source-…), with a link for one business id. Its look is ./ops.css.
 */
import './ops.css';
import { useId, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, sectionNs } from '../i18n';
import { DataTable, ErrorState, LoadingState, PageHeader, Panel, type Column } from '../ui';
import { REFRESH_MS, type OpsOverview } from './api';
import { usePolledResource } from './poll';
import { businessIdQuery, queryLiteral, workflowsLink } from './temporal';

const NS = sectionNs('ops');

type Health = 'up' | 'degraded' | 'down';
const SYMBOL: Record<Health, string> = { up: '✓', degraded: '!', down: '✕' };

const locale = (lng: string) => (lng === 'pt' ? 'pt-BR' : 'en-GB');
/** A family's key in `families.*` (i18next reads `:` as a namespace and `.` as nesting). */
const familyKey = (family: string) => family.replace(/[^A-Za-z0-9]/g, '_');

export default function OpsPage() {
  const { t, i18n } = useTranslation(NS);
  const overview = usePolledResource<OpsOverview>('/ops/overview', REFRESH_MS);
  const o = overview.data;
  const time = (d: Date) => new Intl.DateTimeFormat(locale(i18n.language), { timeStyle: 'medium' }).format(d);

  const problems = useMemo(() => {
    if (!o) return null;
    const deps = o.dependencies.filter((d) => d.status !== 'up').map((d) => t(`dependencies.names.${d.name}`));
    const services = o.services.filter((s) => s.status !== 'up').map((s) => t(`services.names.${s.name}`));
    return [...deps, ...services];
  }, [o, t]);

  return (
    <>
      <PageHeader
        title={t('title')}
        lead={t('lead')}
        actions={
          <>
            <button type="button" className="secondary" onClick={() => void overview.read()} disabled={overview.loading}>
              {overview.loading ? t('refreshing') : t('refresh')}
            </button>
            <button type="button" className="secondary" aria-pressed={overview.state === 'paused'} onClick={() => overview.setPaused(overview.state !== 'paused')}>
              {overview.state === 'paused' ? t('resumeAuto') : t('pauseAuto')}
            </button>
          </>
        }
      />
      <div className="ops-status-bar">
        <p className="ops-updated muted" data-testid="ops-updated">
          {overview.readAt ? t('updated', { time: time(overview.readAt) }) : t('notYet')} · {t(`auto.${overview.state}`, { seconds: REFRESH_MS / 1000 })}
        </p>
        {/* Announced only when it changes (a dependency going down, coming back). */}
        <p role="status" className={`ops-summary ${problems?.length ? 'bad' : 'good'}`} data-testid="ops-summary">
          {problems === null ? '' : problems.length === 0 ? t('allUp') : t('problems', { count: problems.length, list: problems.join(', ') })}
        </p>
      </div>
      {overview.failure && !o ? (
        <ErrorState failure={overview.failure} onRetry={() => void overview.read()} />
      ) : !o ? (
        <LoadingState />
      ) : (
        <>
          {overview.failure ? (
            <p role="alert" className="ops-stale">
              {t('stale', { time: overview.readAt ? time(overview.readAt) : '' })}
            </p>
          ) : null}
          <Dependencies overview={o} />
          <Services overview={o} />
          <Backlog overview={o} />
          <Families overview={o} />
          <p className="muted small">{t('generatedAt', { at: formatDateTime(o.generatedAt, i18n.language) })}</p>
        </>
      )}
    </>
  );
}

function HealthBadge({ health, label }: { health: Health; label: string }) {
  return (
    <span className={`ops-health ${health}`}>
      <span aria-hidden="true">{SYMBOL[health]} </span>
      {label}
    </span>
  );
}

function Dependencies({ overview: o }: { overview: OpsOverview }) {
  const { t } = useTranslation(NS);
  return (
    <Panel title={t('dependencies.title')}>
      <p className="muted ops-help">{t('dependencies.lead')}</p>
      <ul className="ops-cards" data-testid="ops-dependencies">
        {o.dependencies.map((d) => (
          <li key={d.name} className={`ops-card ${d.status}`} data-dependency={d.name}>
            <h3>{t(`dependencies.names.${d.name}`)}</h3>
            <HealthBadge health={d.status} label={t(`health.${d.status}`)} />
            <p className="small muted">{t('latency', { ms: d.latencyMs })}</p>
            {d.error ? (
              <p className="small ops-reason">
                {t('reason')} <code>{d.error}</code>
              </p>
            ) : null}
          </li>
        ))}
      </ul>
    </Panel>
  );
}

function Services({ overview: o }: { overview: OpsOverview }) {
  const { t } = useTranslation(NS);
  type Service = OpsOverview['services'][number];
  const health = (s: Service): Health => (s.status === 'unreachable' ? 'down' : s.status);
  const columns: Column<Service>[] = [
    { header: t('services.service'), rowHeader: true, width: 16, cell: (s) => t(`services.names.${s.name}`) },
    { header: t('services.health'), width: 14, cell: (s) => <HealthBadge health={health(s)} label={t(`health.${health(s)}`)} /> },
    {
      header: t('services.why'),
      width: 28,
      cell: (s) =>
        s.status === 'unreachable' ? (
          <>
            {t('services.noAnswer')}
            {s.error ? (
              <>
                {' '}
                <code>{s.error}</code>
              </>
            ) : s.httpStatus ? (
              <> {t('services.httpStatus', { status: s.httpStatus })}</>
            ) : null}
          </>
        ) : s.down.length ? (
          t('services.downDeps', { list: s.down.map((d) => t(`dependencies.names.${d}`, { defaultValue: d })).join(', ') })
        ) : s.error ? (
          <code>{s.error}</code>
        ) : (
          <span className="muted">—</span>
        ),
    },
    { header: t('services.latency'), width: 14, cell: (s) => (s.latencyMs === null ? <span className="muted">—</span> : t('latency', { ms: s.latencyMs })) },
    { header: t('services.address'), width: 28, cell: (s) => <code className="ops-url">{s.url}</code> },
  ];
  return (
    <Panel title={t('services.title')}>
      <p className="muted ops-help">{t('services.lead')}</p>
      <DataTable fixed caption={t('services.caption')} columns={columns} rows={o.services} rowKey={(s) => s.name} rowAttributes={(s) => ({ 'data-service': s.name })} />
    </Panel>
  );
}

function Backlog({ overview: o }: { overview: OpsOverview }) {
  const { t, i18n } = useTranslation(NS);
  const num = (n: number | null) => (n === null ? <span className="muted" title={t('unknownTitle')}>{t('unknown')}</span> : new Intl.NumberFormat(locale(i18n.language)).format(n));
  type ByType = OpsOverview['backlog']['byWorkflowType'][number];
  type Queue = OpsOverview['backlog']['taskQueues'][number];
  const typeColumns: Column<ByType>[] = [
    { header: t('backlog.workflowType'), rowHeader: true, width: 40, cell: (r) => <code className="ops-code">{r.workflowType}</code> },
    { header: t('backlog.running'), width: 20, className: 'num', cell: (r) => num(r.running) },
    {
      header: t('backlog.temporal'),
      width: 40,
      cell: (r) => (
        <a href={r.temporalUiUrl} target="_blank" rel="noreferrer noopener">
          {t('backlog.openRunning')}
          <span className="visually-hidden">
            {' '}
            {r.workflowType} {t('newTab')}
          </span>
        </a>
      ),
    },
  ];
  const age = (ms: number | null) => (ms === null ? <span className="muted">—</span> : ms < 1000 ? t('ageMs', { ms }) : t('ageS', { s: Math.round(ms / 100) / 10 }));
  const queueColumns: Column<Queue>[] = [
    { header: t('backlog.queue'), rowHeader: true, width: 24, cell: (q) => <code className="ops-code">{q.name}</code> },
    { header: t('backlog.workflowTasks'), width: 16, className: 'num', cell: (q) => num(q.workflowTasks) },
    { header: t('backlog.activityTasks'), width: 16, className: 'num', cell: (q) => num(q.activityTasks) },
    {
      header: t('backlog.pollers'),
      width: 22,
      cell: (q) => (
        <>
          {t('backlog.pollersValue', { workflow: q.workflowPollers ?? '?', activity: q.activityPollers ?? '?' })}
          {q.workflowPollers === 0 || q.activityPollers === 0 ? (
            <>
              <br />
              <span className="ops-warn small">{t('backlog.noWorker')}</span>
            </>
          ) : null}
        </>
      ),
    },
    { header: t('backlog.oldest'), width: 22, cell: (q) => age(q.oldestTaskAgeMs) },
  ];
  return (
    <Panel title={t('backlog.title')} actions={<span className="ops-running">{t('backlog.runningTotal')} <strong data-testid="ops-running">{num(o.backlog.running)}</strong></span>}>
      <p className="muted ops-help">{t('backlog.lead')}</p>
      {o.backlog.error ? (
        <p className="ops-partial">
          {t('backlog.partial')} <code>{o.backlog.error}</code>
        </p>
      ) : null}
      <h3>{t('backlog.byType')}</h3>
      <DataTable fixed caption={t('backlog.byTypeCaption')} columns={typeColumns} rows={o.backlog.byWorkflowType} rowKey={(r) => r.workflowType} rowAttributes={(r) => ({ 'data-workflow-type': r.workflowType })} />
      <h3>{t('backlog.byQueue')}</h3>
      <DataTable fixed caption={t('backlog.byQueueCaption')} columns={queueColumns} rows={o.backlog.taskQueues} rowKey={(q) => q.name} rowAttributes={(q) => ({ 'data-queue': q.name })} />
    </Panel>
  );
}

function Families({ overview: o }: { overview: OpsOverview }) {
  const { t } = useTranslation(NS);
  type Family = OpsOverview['workflowFamilies'][number];
  const columns: Column<Family>[] = [
    {
      header: t('families.family'),
      rowHeader: true,
      width: 24,
      cell: (f) => (
        <>
          {t(`families.names.${familyKey(f.family)}`, { defaultValue: f.family })}
          <br />
          <code className="ops-code small">{f.workflowType}</code>
        </>
      ),
    },
    { header: t('families.ids'), width: 30, cell: (f) => <code className="ops-code">{f.idPattern}</code> },
    { header: t('families.queue'), width: 20, cell: (f) => <code className="ops-code">{f.taskQueue}</code> },
    {
      header: t('families.temporal'),
      width: 26,
      cell: (f) => (
        <a href={f.temporalUiUrl} target="_blank" rel="noreferrer noopener">
          {t('families.open')}
          <span className="visually-hidden">
            {' '}
            {t(`families.names.${familyKey(f.family)}`, { defaultValue: f.family })} {t('newTab')}
          </span>
        </a>
      ),
    },
  ];
  return (
    <Panel title={t('families.title')}>
      <p className="muted ops-help">{t('families.lead', { url: o.temporalUi.url, namespace: o.temporalUi.namespace })}</p>
      <FindByBusinessId overview={o} />
      <DataTable fixed caption={t('families.caption')} columns={columns} rows={o.workflowFamilies} rowKey={(f) => f.family} rowAttributes={(f) => ({ 'data-family': f.family })} />
    </Panel>
  );
}

/** A link into the Temporal UI for the workflows of one business id: a family (its id prefix and type) and the id. */
function FindByBusinessId({ overview: o }: { overview: OpsOverview }) {
  const { t } = useTranslation(NS);
  const id = useId();
  const families = o.workflowFamilies.filter((f) => f.idPrefix !== null);
  const [family, setFamily] = useState(families.find((f) => f.family === 'ticketBulk')?.family ?? families[0]?.family ?? '');
  const [key, setKey] = useState('');
  const [link, setLink] = useState<{ href: string; id: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const chosen = families.find((f) => f.family === family);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const value = key.trim();
    if (!chosen) return;
    if (!value) {
      setError(t('find.required'));
      setLink(null);
      return;
    }
    if (value.length > 200) {
      setError(t('find.tooLong', { max: 200 }));
      setLink(null);
      return;
    }
    setError(null);
    const prefix = `${chosen.idPrefix ?? ''}${value}`;
    // A deployment with a task-queue prefix shares its namespace: its own queue narrows the list, as the family's query does.
    const queue = chosen.query.includes('`TaskQueue`') ? ` AND \`TaskQueue\` = ${queryLiteral(chosen.taskQueue)}` : '';
    setLink({ href: workflowsLink(o.temporalUi.url, o.temporalUi.namespace, `${businessIdQuery(prefix, chosen.workflowType)}${queue}`), id: prefix });
  };

  if (!families.length) return null;
  return (
    <form className="ops-find" onSubmit={submit} aria-labelledby={`${id}-title`} noValidate>
      <h3 id={`${id}-title`}>{t('find.title')}</h3>
      <div className="ops-find-fields">
        <div className="ops-field">
          <label htmlFor={`${id}-family`}>{t('find.family')}</label>
          <select
            id={`${id}-family`}
            value={family}
            onChange={(e) => {
              setFamily(e.target.value);
              setLink(null);
            }}
          >
            {families.map((f) => (
              <option key={f.family} value={f.family}>
                {t(`families.names.${familyKey(f.family)}`, { defaultValue: f.family })} ({f.idPrefix}…)
              </option>
            ))}
          </select>
        </div>
        <div className="ops-field ops-key">
          <label htmlFor={`${id}-key`}>{t('find.key')}</label>
          <input
            id={`${id}-key`}
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={key}
            placeholder={chosen ? chosen.idPattern.slice(chosen.idPrefix?.length ?? 0) : ''}
            onChange={(e) => {
              setKey(e.target.value);
              setError(null);
              setLink(null);
            }}
            aria-invalid={error ? true : undefined}
            aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
          />
        </div>
        <button type="submit" className="secondary">
          {t('find.submit')}
        </button>
      </div>
      <p id={`${id}-help`} className="muted small ops-find-help">
        {t('find.help', { pattern: chosen?.idPattern ?? '' })}
      </p>
      {error ? (
        <p id={`${id}-error`} className="error ops-find-help">
          {error}
        </p>
      ) : null}
      <div role="status" className="ops-find-result">
        {link ? (
          <a href={link.href} target="_blank" rel="noreferrer noopener" data-testid="ops-find-link">
            {t('find.open', { id: link.id })}
            <span className="visually-hidden"> {t('newTab')}</span>
          </a>
        ) : null}
      </div>
    </form>
  );
}
