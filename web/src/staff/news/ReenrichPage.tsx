/**
 * /staff/news/enrichments: enriching again the articles a filter matches (POST /admin/enrichments:
 * a source, a sector, a publication period, "prompt version other than", article ids), after a
 * prompt or model change; its progress, read every 2 seconds while it runs (GET
 * /admin/enrichments/{id}); and cancel (POST …/cancel: it stops between articles).
 *
 * The API lists no operations, so the page keeps the ids of those started in this browser
 * (localStorage, the latest 10) to follow them again after a reload. `?sourceId=` fills the form
 * in (the articles page's "Re-enrich this source").
 */
import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { SECTORS } from '../../../../models/news/article.rules';
import { REENRICH_IDS_MAX, REENRICH_MAX_ARTICLES } from '../../../../models/news/reenrich.rules';
import { failureOf, useStaffResource, type Failure } from '../api';
import { ErrorState, LoadingState, Panel, useConfirm, useFailureText, useNotify } from '../ui';
import { fieldProblems, newsApi, newsPaths, type Reenrichment, type ReenrichmentFilter, type Sector, type Source } from './api';
import { Badge, Editor, FieldError, NewsHeader, NS, useNames, useNumber, When } from './parts';

const POLL_MS = 2_000;
const KEPT = 10;
const STORE = 'newsReenrichments';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The operations started in this browser, newest first. */
function remembered(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(STORE) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && UUID.test(x)).slice(0, KEPT) : [];
  } catch {
    return [];
  }
}
function forget(id: string): string[] {
  const list = remembered().filter((x) => x !== id);
  try {
    localStorage.setItem(STORE, JSON.stringify(list));
  } catch {
    // nothing kept
  }
  return list;
}
function remember(id: string): string[] {
  const list = [id, ...remembered().filter((x) => x !== id)].slice(0, KEPT);
  try {
    localStorage.setItem(STORE, JSON.stringify(list));
  } catch {
    // not kept: followed in this page only
  }
  return list;
}

/** A datetime-local value (the reader's time zone) as an ISO 8601 instant; '' stays absent. */
const instant = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

export default function ReenrichPage() {
  const { t } = useTranslation(NS);
  const [params] = useSearchParams();
  const [recent, setRecent] = useState<string[]>(remembered);
  const [current, setCurrent] = useState<string | null>(() => remembered()[0] ?? null);
  // An operation just started here: its progress takes the focus (on a phone it is below the form).
  const [startedHere, setStartedHere] = useState<string | null>(null);
  const started = (op: Reenrichment) => {
    setRecent(remember(op.id));
    setCurrent(op.id);
    setStartedHere(op.id);
  };
  const presetSource = params.get('sourceId');
  const sources = useStaffResource<Source[]>(newsPaths.sources).data;
  return (
    <>
      <NewsHeader title={t('reenrich.title')} lead={t('reenrich.lead', { max: REENRICH_MAX_ARTICLES.toLocaleString() })} />
      <div className="nw-reenrich">
        <StartForm sources={sources} presetSource={presetSource && UUID.test(presetSource) ? presetSource.toLowerCase() : ''} onStarted={started} />
        {current ? (
          <Progress
            key={current}
            operationId={current}
            sources={sources}
            focusOnLoad={startedHere === current}
            onGone={() => {
              const left = forget(current);
              setRecent(left);
              setCurrent(null);
            }}
          />
        ) : null}
      </div>
      {recent.length > 1 ? (
        <Panel title={t('reenrich.recent')}>
          <ul className="nw-plain nw-recent">
            {recent.map((id) => (
              <li key={id}>
                {id === current ? (
                  <span aria-current="true">
                    <code className="nw-code">{id}</code> <span className="muted small">{t('reenrich.shown')}</span>
                  </span>
                ) : (
                  <button type="button" className="link" onClick={() => setCurrent(id)}>
                    {t('reenrich.show')} <code className="nw-code">{id}</code>
                  </button>
                )}
              </li>
            ))}
          </ul>
        </Panel>
      ) : null}
    </>
  );
}

type Field = 'sourceId' | 'sector' | 'from' | 'to' | 'promptVersionNot' | 'articleIds';

function StartForm({ sources, presetSource, onStarted }: { sources: Source[] | undefined; presetSource: string; onStarted: (op: Reenrichment) => void }) {
  const { t } = useTranslation(NS);
  const names = useNames();
  const notify = useNotify();
  const failureText = useFailureText();
  const id = useId();
  const [sourceId, setSourceId] = useState(presetSource);
  const [sector, setSector] = useState<Sector | ''>('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [promptVersionNot, setPromptVersionNot] = useState('');
  const [articleIds, setArticleIds] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field | 'filter', string>>>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => setSourceId(presetSource), [presetSource]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAlert(null);
    const found: Partial<Record<Field | 'filter', string>> = {};
    const ids = articleIds.split(/[\s,;]+/).filter(Boolean);
    const bad = ids.find((x) => !UUID.test(x));
    if (bad) found.articleIds = t('reenrich.form.badId', { id: bad });
    else if (ids.length > REENRICH_IDS_MAX) found.articleIds = t('reenrich.form.tooManyIds', { max: REENRICH_IDS_MAX });
    if (from && to && new Date(from) > new Date(to)) found.to = t('reenrich.form.toBeforeFrom');
    const filter: ReenrichmentFilter = {
      ...(sourceId ? { sourceId } : {}),
      ...(sector ? { sector } : {}),
      ...(from ? { from: instant(from)! } : {}),
      ...(to ? { to: instant(to)! } : {}),
      ...(promptVersionNot.trim() ? { promptVersionNot: promptVersionNot.trim() } : {}),
      ...(ids.length ? { articleIds: ids.map((x) => x.toLowerCase()) } : {}),
    };
    if (Object.keys(filter).length === 0 && !found.articleIds) found.filter = t('reenrich.form.atLeastOne');
    setErrors(found);
    if (Object.keys(found).length) {
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    setBusy(true);
    try {
      const op = await newsApi.startReenrichment(filter);
      notify(t('reenrich.form.started', { count: op.total }));
      onStarted(op);
    } catch (err) {
      const fields: Partial<Record<Field | 'filter', string>> = {};
      for (const f of fieldProblems(err)) {
        const key = f.path.split('.')[0] as Field;
        if (['sourceId', 'sector', 'from', 'to', 'promptVersionNot', 'articleIds'].includes(key)) fields[key] ??= f.message;
      }
      setErrors(fields);
      if (Object.keys(fields).length === 0) setAlert(failureText(failureOf(err)));
    } finally {
      setBusy(false);
    }
  };

  const described = (f: Field, help = false) => [help ? `${id}-${f}-help` : '', errors[f] ? `${id}-${f}-error` : '', errors.filter ? `${id}-filter-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <Panel title={t('reenrich.form.title')}>
      <form ref={form} className="stack nw-form" onSubmit={(e) => void submit(e)} aria-describedby={`${id}-lead`}>
        <p id={`${id}-lead`} className="muted">
          {t('reenrich.form.lead')}
        </p>
        <FieldError id={`${id}-filter-error`} message={errors.filter} />
        <div className="nw-form-grid">
          <div className="staff-field">
            <label htmlFor={`${id}-sourceId`}>{t('reenrich.form.source')}</label>
            <select id={`${id}-sourceId`} value={sourceId} onChange={(e) => setSourceId(e.target.value)} aria-invalid={!!errors.sourceId || !!errors.filter} aria-describedby={described('sourceId')}>
              <option value="">{t('reenrich.form.anySource')}</option>
              {sourceId && sources && !sources.some((s) => s.id === sourceId) ? <option value={sourceId}>{t('articles.thisSource')}</option> : null}
              {(sources ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
            <FieldError id={`${id}-sourceId-error`} message={errors.sourceId} />
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-sector`}>{t('reenrich.form.sector')}</label>
            <select id={`${id}-sector`} value={sector} onChange={(e) => setSector(e.target.value as Sector | '')} aria-describedby={described('sector')}>
              <option value="">{t('reenrich.form.anySector')}</option>
              {SECTORS.map((s) => (
                <option key={s} value={s}>
                  {names.sector(s)} ({s})
                </option>
              ))}
            </select>
            <FieldError id={`${id}-sector-error`} message={errors.sector} />
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-from`}>{t('reenrich.form.from')}</label>
            <input id={`${id}-from`} type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} aria-invalid={!!errors.from} aria-describedby={described('from')} />
            <FieldError id={`${id}-from-error`} message={errors.from} />
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-to`}>{t('reenrich.form.to')}</label>
            <input id={`${id}-to`} type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} aria-invalid={!!errors.to} aria-describedby={described('to')} />
            <FieldError id={`${id}-to-error`} message={errors.to} />
          </div>
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-promptVersionNot`}>{t('reenrich.form.promptVersionNot')}</label>
          <input id={`${id}-promptVersionNot`} maxLength={100} value={promptVersionNot} onChange={(e) => setPromptVersionNot(e.target.value)} spellCheck={false} aria-invalid={!!errors.promptVersionNot} aria-describedby={described('promptVersionNot', true)} />
          <p id={`${id}-promptVersionNot-help`} className="muted staff-help">
            {t('reenrich.form.promptHelp')}
          </p>
          <FieldError id={`${id}-promptVersionNot-error`} message={errors.promptVersionNot} />
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-articleIds`}>{t('reenrich.form.articleIds')}</label>
          <textarea id={`${id}-articleIds`} rows={2} spellCheck={false} value={articleIds} onChange={(e) => setArticleIds(e.target.value)} aria-invalid={!!errors.articleIds} aria-describedby={described('articleIds', true)} />
          <p id={`${id}-articleIds-help`} className="muted staff-help">
            {t('reenrich.form.articleIdsHelp', { max: REENRICH_IDS_MAX })}
          </p>
          <FieldError id={`${id}-articleIds-error`} message={errors.articleIds} />
        </div>
        {alert ? (
          <p role="alert" className="error">
            {alert}
          </p>
        ) : null}
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t('reenrich.form.starting') : t('reenrich.form.start')}
          </button>
        </div>
      </form>
    </Panel>
  );
}

/** An operation's progress, read again every 2 seconds while it runs (and the page is shown). */
function Progress({ operationId, sources, onGone, focusOnLoad }: { operationId: string; sources: Source[] | undefined; onGone: () => void; focusOnLoad: boolean }) {
  const { t } = useTranslation(NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const confirm = useConfirm();
  const failureText = useFailureText();
  const id = useId();
  const [op, setOp] = useState<Reenrichment | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [cancelling, setCancelling] = useState(false);
  // Only an operation seen running here says when it ends.
  const watched = useRef(false);
  const gone = useRef(onGone);
  gone.current = onGone;

  const read = useCallback(async () => {
    try {
      const now = await newsApi.reenrichment(operationId);
      setFailure(null);
      if (watched.current && now.state !== 'running') {
        watched.current = false;
        notify(t(`reenrich.ended.${now.state}`, { done: now.done, total: now.total }), now.state === 'failed' ? 'error' : 'success');
      }
      if (now.state === 'running') watched.current = true;
      setOp(now);
    } catch (err) {
      const f = failureOf(err);
      // Remembered here, gone there (another deployment's, or removed): forgotten.
      if (f.kind === 'notFound') gone.current();
      else setFailure(f);
    }
  }, [operationId, notify, t]);

  useEffect(() => {
    void read();
  }, [read]);
  const running = op?.state === 'running';
  const loaded = op !== null;
  useEffect(() => {
    if (!loaded || !focusOnLoad) return;
    const heading = document.getElementById(`${id}-title`);
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [loaded, focusOnLoad, id]);
  useEffect(() => {
    if (!running) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void read();
    }, POLL_MS);
    return () => window.clearInterval(timer);
  }, [running, read]);
  useEffect(() => {
    if (!running) setCancelling(false);
  }, [running]);

  const cancel = async () => {
    const ok = await confirm({ title: t('reenrich.cancelTitle'), body: <p>{t('reenrich.cancelBody')}</p>, confirmLabel: t('reenrich.cancel'), danger: true });
    if (!ok) return;
    try {
      await newsApi.cancelReenrichment(operationId);
      setCancelling(true);
      notify(t('reenrich.cancelRequested'), 'info');
      void read();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
      void read();
    }
  };

  if (failure && !op) {
    return (
      <Panel title={t('reenrich.progress')}>
        <ErrorState failure={failure} onRetry={() => void read()} />
      </Panel>
    );
  }
  if (!op) {
    return (
      <Panel title={t('reenrich.progress')}>
        <LoadingState />
      </Panel>
    );
  }
  const handled = op.done + op.failed + op.gone;
  const f = op.filter;
  const tone = op.state === 'completed' ? 'ok' : op.state === 'failed' ? 'bad' : op.state === 'cancelled' ? 'off' : 'info';
  return (
    <Panel
      id={`${id}-title`}
      title={t('reenrich.progress')}
      actions={
        running ? (
          <button type="button" className="secondary danger-outline" onClick={() => void cancel()} disabled={cancelling}>
            {cancelling ? t('reenrich.cancelling') : t('reenrich.cancel')}
          </button>
        ) : null
      }
    >
      <div className="nw-progress" data-testid="reenrich-progress" data-state={op.state}>
        <p className="nw-progress-state" role="status">
          <Badge tone={tone}>{names.reenrichState(cancelling && running ? 'cancelling' : op.state)}</Badge>{' '}
          {t('reenrich.handled', { handled: number(handled), total: number(op.total) })}
        </p>
        <label htmlFor={`${id}-bar`} className="visually-hidden">
          {t('reenrich.progress')}
        </label>
        <progress id={`${id}-bar`} max={Math.max(op.total, 1)} value={op.total === 0 ? 1 : handled} />
        <dl className="nw-dl nw-counts">
          <dt>{t('reenrich.done')}</dt>
          <dd data-count="done">{number(op.done)}</dd>
          <dt>{t('reenrich.failed')}</dt>
          <dd data-count="failed">{number(op.failed)}</dd>
          <dt>{t('reenrich.gone')}</dt>
          <dd data-count="gone">{number(op.gone)}</dd>
          {op.waiting ? (
            <>
              <dt>{t('reenrich.waiting')}</dt>
              <dd>
                {t('reenrich.waitingUntil', { count: op.waiting })} <When iso={op.resumeAt} relative />
              </dd>
            </>
          ) : null}
        </dl>
        {op.error ? <p className="error">{op.error}</p> : null}
        <dl className="nw-dl nw-dl-wide">
          <dt>{t('reenrich.filter')}</dt>
          <dd>
            <ul className="nw-plain">
              {f.sourceId ? <li>{t('reenrich.form.source')}: {sources?.find((s) => s.id === f.sourceId)?.name ?? <code className="nw-code">{f.sourceId}</code>}</li> : null}
              {f.sector ? <li>{t('reenrich.form.sector')}: {names.sector(f.sector)}</li> : null}
              {f.from ? <li>{t('reenrich.form.from')}: <When iso={f.from} /></li> : null}
              {f.to ? <li>{t('reenrich.form.to')}: <When iso={f.to} /></li> : null}
              {f.promptVersionNot ? <li>{t('reenrich.form.promptVersionNot')}: <code className="nw-code">{f.promptVersionNot}</code></li> : null}
              {f.articleIds ? <li>{t('reenrich.articleCount', { count: f.articleIds.length })}</li> : null}
            </ul>
          </dd>
          <dt>{t('reenrich.promptVersion')}</dt>
          <dd>
            <code className="nw-code">{op.promptVersion}</code>
          </dd>
          <dt>{t('reenrich.started')}</dt>
          <dd>
            <Editor by={op.createdBy} /> · <When iso={op.createdAt} />
          </dd>
          {op.finishedAt ? (
            <>
              <dt>{t('reenrich.finished')}</dt>
              <dd>
                <When iso={op.finishedAt} />
              </dd>
            </>
          ) : null}
          <dt>{t('article.workflow')}</dt>
          <dd>
            <code className="nw-code">{op.workflowId}</code>
          </dd>
        </dl>
        {op.errors.length ? (
          <>
            <h3>{t('reenrich.errors')}</h3>
            <ul className="nw-plain nw-errors">
              {op.errors.map((e) => (
                <li key={e.articleId}>
                  <Link to={`/staff/news/articles/${e.articleId}`}>
                    <code className="nw-code">{e.articleId}</code>
                  </Link>
                  : {e.error}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </div>
    </Panel>
  );
}
