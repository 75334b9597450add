/**
 * /staff/news/catalogue: the entity catalogue (GET /admin/entities), by canonical name, searched by
 * the start of a name, an alias or a ticker and filtered by type, 20 a page (the search and the
 * page in the address). An entity's aliases, ticker and CNPJ are edited in a dialog (PATCH
 * /admin/entities/{id}); a refusal is told on its field: the API's problem (400) or the entity that
 * has the value already (409).
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ENTITY_TYPES } from '../../../../models/news/article.rules';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Modal, Pagination, queryNow, useNotify, type Column } from '../ui';
import { fieldProblems, heldByOther, newsApi, PAGE_SIZE, usePage, type Entity, type EntityPatch, type EntityType } from './api';
import { FieldError, NewsHeader, NS, useNames, useNumber, useProblem } from './parts';

/** Aliases shown in a row (the dialog shows all). */
const ALIASES_SHOWN = 6;

/** The catalogue's search, type and page, from the address's query. */
function filtersOf(params: URLSearchParams): { q: string; type?: EntityType; pageNo: number } {
  const rawType = params.get('type');
  return {
    q: (params.get('q') ?? '').trim().slice(0, 100),
    type: (ENTITY_TYPES as readonly string[]).includes(rawType ?? '') ? (rawType as EntityType) : undefined,
    pageNo: Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1),
  };
}

export default function CataloguePage() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const { q, type, pageNo } = filtersOf(params);
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  const list = usePage(() => newsApi.entities({ q: q || undefined, type, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE }), `${q}|${type}|${pageNo}`);
  const [editing, setEditing] = useState<Entity | null>(null);
  const turned = useRef(false);
  useEffect(() => {
    if (turned.current && !list.loading) {
      turned.current = false;
      document.getElementById(`${id}-list`)?.focus();
    }
  }, [list.loading, id]);

  const go = (next: { q?: string; type?: EntityType | undefined; page?: number }) => {
    const p = new URLSearchParams();
    if (next.q) p.set('q', next.q);
    if (next.type) p.set('type', next.type);
    if (next.page && next.page > 1) p.set('page', String(next.page));
    setParams(p);
  };
  const search = (e: FormEvent) => {
    e.preventDefault();
    go({ q: typed.trim(), type: filtersOf(queryNow()).type });
  };

  const columns: Column<Entity>[] = [
    {
      header: t('catalogue.name'),
      rowHeader: true,
      width: 24,
      cell: (e) => (
        <>
          <span className="nw-source-name">{e.canonicalName}</span>
          <span className="nw-block muted small">{names.entityType(e.entityType)}</span>
        </>
      ),
    },
    {
      header: t('catalogue.aliases'),
      width: 30,
      cell: (e) =>
        e.aliases.length === 0 ? (
          <span className="muted">{t('common.none')}</span>
        ) : (
          <ul className="nw-chips">
            {e.aliases.slice(0, ALIASES_SHOWN).map((a) => (
              <li key={a}>{a}</li>
            ))}
            {e.aliases.length > ALIASES_SHOWN ? <li className="nw-chip-more">{t('catalogue.more', { count: e.aliases.length - ALIASES_SHOWN })}</li> : null}
          </ul>
        ),
    },
    { header: t('catalogue.ticker'), width: 12, cell: (e) => (e.ticker ? <span data-field="ticker">{e.ticker}</span> : <span className="muted">{t('common.none')}</span>) },
    { header: t('catalogue.cnpj'), width: 18, cell: (e) => (e.cnpj ? <span className="nw-nowrap">{e.cnpj}</span> : <span className="muted">{t('common.none')}</span>) },
    {
      header: t('catalogue.actions'),
      className: 'actions',
      width: 16,
      cell: (e) => (
        <button type="button" className="secondary" onClick={() => setEditing(e)}>
          {t('catalogue.edit')}
          <span className="visually-hidden"> {e.canonicalName}</span>
        </button>
      ),
    },
  ];

  const page = list.page;
  const total = page?.pagination.total ?? 0;
  return (
    <>
      <NewsHeader title={t('catalogue.title')} lead={t('catalogue.lead')} />
      <div className="card nw-filters">
        <form className="nw-filter-row" role="search" aria-label={t('catalogue.searchLabel')} onSubmit={search}>
          <div className="staff-field nw-grow">
            <label htmlFor={`${id}-q`}>{t('catalogue.search')}</label>
            <input id={`${id}-q`} type="search" maxLength={100} value={typed} onChange={(e) => setTyped(e.target.value)} aria-describedby={`${id}-q-help`} />
            <p id={`${id}-q-help`} className="muted staff-help">
              {t('picker.help')}
            </p>
          </div>
          <div className="staff-field">
            <label htmlFor={`${id}-type`}>{t('catalogue.type')}</label>
            <select id={`${id}-type`} value={type ?? ''} onChange={(e) => go({ q: filtersOf(queryNow()).q, type: (e.target.value || undefined) as EntityType | undefined })}>
              <option value="">{t('catalogue.allTypes')}</option>
              {ENTITY_TYPES.map((x) => (
                <option key={x} value={x}>
                  {names.entityType(x)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit">{t('catalogue.submit')}</button>
          {q || type ? (
            <button type="button" className="link" onClick={() => go({})}>
              {t('articles.clear')}
            </button>
          ) : null}
        </form>
      </div>
      <section className="card staff-panel" aria-labelledby={`${id}-list`} aria-busy={list.loading}>
        <div className="staff-panel-head">
          <h2 id={`${id}-list`} tabIndex={-1}>
            {q ? t('catalogue.resultsFor', { q }) : t('catalogue.listTitle')}
          </h2>
          {page ? (
            <span className="muted" role="status">
              {t('catalogue.count', { count: total, n: number(total) })}
            </span>
          ) : null}
        </div>
        {list.failure ? (
          <ErrorState failure={list.failure} onRetry={() => void list.reload()} />
        ) : !page ? (
          <LoadingState />
        ) : (
          <>
            <DataTable fixed caption={t('catalogue.caption')} columns={columns} rows={page.data} rowKey={(e) => e.id} empty={q || type ? t('catalogue.noneFound') : t('catalogue.none')} rowAttributes={(e) => ({ 'data-entity': e.id })} />
            <Pagination
              label={t('catalogue.listTitle')}
              page={pageNo}
              pages={Math.max(1, Math.ceil(total / PAGE_SIZE))}
              hasPrevious={pageNo > 1}
              hasNext={page.pagination.hasMore}
              previousLabel={shell('ui.previous')}
              nextLabel={shell('ui.next')}
              busy={list.loading}
              onPrevious={() => {
                turned.current = true;
                const now = filtersOf(queryNow());
                go({ ...now, page: now.pageNo - 1 });
              }}
              onNext={() => {
                turned.current = true;
                const now = filtersOf(queryNow());
                go({ ...now, page: now.pageNo + 1 });
              }}
            />
          </>
        )}
      </section>
      <EntityDialog
        entity={editing}
        onClose={() => setEditing(null)}
        onSaved={(saved) => {
          setEditing(null);
          if (saved) notify(t('catalogue.saved', { name: saved.canonicalName }));
          else notify(t('common.unchanged'), 'info');
          if (saved) void list.reload();
        }}
      />
    </>
  );
}

function EntityDialog({ entity, onClose, onSaved }: { entity: Entity | null; onClose: () => void; onSaved: (e: Entity | null) => void }) {
  const { t } = useTranslation(NS);
  return (
    <Modal open={entity !== null} title={entity ? t('catalogue.dialogTitle', { name: entity.canonicalName }) : ''} onClose={onClose} className="nw-dialog">
      {entity ? <EntityForm entity={entity} onClose={onClose} onSaved={onSaved} /> : null}
    </Modal>
  );
}

type Field = 'aliases' | 'ticker' | 'cnpj';

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

function EntityForm({ entity, onClose, onSaved }: { entity: Entity; onClose: () => void; onSaved: (e: Entity | null) => void }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const names = useNames();
  const problem = useProblem();
  const id = useId();
  const [aliases, setAliases] = useState(entity.aliases.join('\n'));
  const [ticker, setTicker] = useState(entity.ticker ?? '');
  const [cnpj, setCnpj] = useState(entity.cnpj ?? '');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors({});
    setAlert(null);
    const body: EntityPatch = {};
    const list = lines(aliases);
    if (list.length !== entity.aliases.length || list.some((a, i) => a !== entity.aliases[i])) body.aliases = list;
    const tk = ticker.trim().toUpperCase();
    if ((tk || null) !== entity.ticker) body.ticker = tk || null;
    const cn = cnpj.trim();
    if ((cn || null) !== entity.cnpj) body.cnpj = cn || null;
    if (Object.keys(body).length === 0) {
      onSaved(null);
      return;
    }
    setBusy(true);
    try {
      onSaved(await newsApi.changeEntity(entity.id, body));
    } catch (err) {
      const found: Partial<Record<Field, string>> = {};
      for (const f of fieldProblems(err)) {
        const [field, index] = f.path.split('.');
        if (field === 'aliases') found.aliases ??= index !== undefined ? t('catalogue.aliasLine', { line: Number(index) + 1, message: f.message }) : f.message;
        else if (field === 'ticker' || field === 'cnpj') found[field] ??= f.message;
      }
      const p = problem(err);
      const held = p.failure.kind === 'conflict' ? heldByOther(p.failure.message) : null;
      if (held?.what === 'ticker') found.ticker = t('catalogue.heldTicker', { name: held.name });
      else if (held?.what === 'cnpj') found.cnpj = t('catalogue.heldCnpj', { name: held.name });
      else if (held?.what === 'name') found.aliases = t('catalogue.heldName', { name: held.name, message: p.failure.message });
      setErrors(found);
      const first = (['aliases', 'ticker', 'cnpj'] as const).find((f) => found[f]);
      if (first) document.getElementById(`${id}-${first}`)?.focus();
      else setAlert(p.text);
    } finally {
      setBusy(false);
    }
  };

  const describedBy = (f: Field) => `${id}-${f}-help${errors[f] ? ` ${id}-${f}-error` : ''}`;
  return (
    <form className="stack nw-form" onSubmit={(e) => void submit(e)}>
      <p className="muted">
        {names.entityType(entity.entityType)} · {t('catalogue.nameFixed')}
      </p>
      <div className="staff-field">
        <label htmlFor={`${id}-aliases`}>{t('catalogue.aliasesLabel')}</label>
        <textarea id={`${id}-aliases`} rows={5} value={aliases} onChange={(e) => setAliases(e.target.value)} aria-invalid={!!errors.aliases} aria-describedby={describedBy('aliases')} />
        <p id={`${id}-aliases-help`} className="muted staff-help">
          {t('catalogue.aliasesHelp')}
        </p>
        <FieldError id={`${id}-aliases-error`} message={errors.aliases} />
      </div>
      <div className="nw-form-grid">
        <div className="staff-field">
          <label htmlFor={`${id}-ticker`}>{t('catalogue.ticker')}</label>
          <input id={`${id}-ticker`} value={ticker} maxLength={16} autoComplete="off" autoCapitalize="characters" spellCheck={false} onChange={(e) => setTicker(e.target.value)} aria-invalid={!!errors.ticker} aria-describedby={describedBy('ticker')} />
          <p id={`${id}-ticker-help`} className="muted staff-help">
            {t('catalogue.tickerHelp')}
          </p>
          <FieldError id={`${id}-ticker-error`} message={errors.ticker} />
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-cnpj`}>{t('catalogue.cnpj')}</label>
          <input id={`${id}-cnpj`} value={cnpj} maxLength={18} inputMode="numeric" autoComplete="off" spellCheck={false} onChange={(e) => setCnpj(e.target.value)} aria-invalid={!!errors.cnpj} aria-describedby={describedBy('cnpj')} />
          <p id={`${id}-cnpj-help`} className="muted staff-help">
            {t('catalogue.cnpjHelp')}
          </p>
          <FieldError id={`${id}-cnpj-error`} message={errors.cnpj} />
        </div>
      </div>
      {alert ? (
        <p role="alert" className="error staff-dialog-error">
          {alert}
        </p>
      ) : null}
      <div className="staff-dialog-actions">
        <button type="button" className="secondary" onClick={onClose}>
          {shell('ui.cancel')}
        </button>
        <button type="submit" disabled={busy}>
          {busy ? t('common.saving') : t('common.save')}
        </button>
      </div>
    </form>
  );
}
