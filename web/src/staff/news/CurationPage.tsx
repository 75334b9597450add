/**
 * /staff/news/curation: the entity curation queue (GET /admin/entity-candidates): names the model
 * found in articles that the catalogue lacks, most mentioned first, with the articles they were
 * found in. An open one is accepted into the catalogue (an entity is made), added as another name
 * of an entity the catalogue has (a dialog with a catalogue search), or dismissed (asked first: it
 * stays dismissed). The decided ones are listed by their decision (?state=accepted…).
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { failureOf, useStaffResource } from '../api';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Modal, Panel, useConfirm, useFailureText, useNotify, type Column } from '../ui';
import { newsApi, newsPaths, type Candidate, type CandidateState } from './api';
import { Badge, EntityPicker, NewsHeader, NS, useNames, useNumber, When } from './parts';

const STATES: readonly CandidateState[] = ['open', 'accepted', 'aliased', 'dismissed'];
/** Candidates listed (the API answers at most 200, most mentioned first). */
const LISTED = 100;
/** Articles linked per candidate in the list (the API keeps 20). */
const ARTICLES_SHOWN = 3;

export default function CurationPage() {
  const { t } = useTranslation(NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const confirm = useConfirm();
  const failureText = useFailureText();
  const id = useId();
  const [params, setParams] = useSearchParams();
  const raw = params.get('state');
  const state: CandidateState = STATES.includes(raw as CandidateState) ? (raw as CandidateState) : 'open';
  const list = useStaffResource<Candidate[]>(newsPaths.candidates, { state, limit: LISTED });
  const [busy, setBusy] = useState<string | null>(null);
  const [aliasing, setAliasing] = useState<Candidate | null>(null);

  const after = async () => {
    await list.reload();
    // The row is gone, and its buttons with it: the focus goes to the page's heading.
    if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
  };

  const accept = async (c: Candidate) => {
    setBusy(c.id);
    try {
      await newsApi.accept(c.id);
      notify(t('curation.accepted', { name: c.name }));
      await after();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    } finally {
      setBusy(null);
    }
  };

  const dismiss = async (c: Candidate) => {
    const ok = await confirm({ title: t('curation.dismissTitle', { name: c.name }), body: <p>{t('curation.dismissBody')}</p>, confirmLabel: t('curation.dismiss'), danger: true });
    if (!ok) return;
    setBusy(c.id);
    try {
      await newsApi.dismiss(c.id);
      notify(t('curation.dismissed', { name: c.name }));
      await after();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    } finally {
      setBusy(null);
    }
  };

  const columns: Column<Candidate>[] = [
    {
      header: t('curation.name'),
      rowHeader: true,
      width: 20,
      cell: (c) => (
        <>
          <span className="nw-source-name">{c.name}</span>
          <span className="nw-block muted small">{names.entityType(c.entityType)}</span>
        </>
      ),
    },
    {
      header: t('curation.identifiers'),
      width: 12,
      cell: (c) =>
        c.ticker || c.cnpj ? (
          <>
            {c.ticker ? <span className="nw-block">{c.ticker}</span> : null}
            {c.cnpj ? <span className="nw-block small">{c.cnpj}</span> : null}
          </>
        ) : (
          <span className="muted">{t('common.none')}</span>
        ),
    },
    { header: t('curation.mentions'), width: 10, className: 'nw-number', cell: (c) => number(c.mentions) },
    {
      header: t('curation.seen'),
      width: 22,
      cell: (c) => (
        <>
          <span className="nw-block small">
            {t('curation.first')} <When iso={c.firstSeenAt} />
          </span>
          <span className="nw-block small">
            {t('curation.last')} <When iso={c.lastSeenAt} />
          </span>
        </>
      ),
    },
    {
      header: t('curation.articles'),
      width: 12,
      cell: (c) =>
        c.articleIds.length === 0 ? (
          <span className="muted">{t('common.none')}</span>
        ) : (
          <ul className="nw-plain">
            {c.articleIds.slice(0, ARTICLES_SHOWN).map((a, i) => (
              <li key={a}>
                <Link to={`/staff/news/articles/${a}`}>
                  {t('curation.article', { n: i + 1 })}
                  <span className="visually-hidden"> {t('curation.mentioning', { name: c.name })}</span>
                </Link>
              </li>
            ))}
            {c.articleIds.length > ARTICLES_SHOWN ? <li className="muted small">{t('curation.more', { count: c.articleIds.length - ARTICLES_SHOWN })}</li> : null}
          </ul>
        ),
    },
    {
      header: t('curation.decision'),
      className: 'actions',
      width: 24,
      cell: (c) =>
        c.state === 'open' ? (
          <div className="staff-actions">
            <button type="button" onClick={() => void accept(c)} disabled={busy === c.id}>
              {t('curation.accept')}
              <span className="visually-hidden"> {c.name}</span>
            </button>
            <button type="button" className="secondary" onClick={() => setAliasing(c)} disabled={busy === c.id}>
              {t('curation.alias')}
              <span className="visually-hidden"> {t('curation.aliasOf', { name: c.name })}</span>
            </button>
            <button type="button" className="secondary danger-outline" onClick={() => void dismiss(c)} disabled={busy === c.id}>
              {t('curation.dismiss')}
              <span className="visually-hidden"> {c.name}</span>
            </button>
          </div>
        ) : (
          <>
            <Badge tone={c.state === 'dismissed' ? 'off' : 'ok'}>{names.candidateState(c.state)}</Badge>
            {c.entityId ? (
              <Link className="nw-block small" to={`/staff/news/catalogue?q=${encodeURIComponent(c.name.slice(0, 100))}`}>
                {t('curation.inCatalogue')}
                <span className="visually-hidden"> {c.name}</span>
              </Link>
            ) : null}
          </>
        ),
    },
  ];

  return (
    <>
      <NewsHeader title={t('curation.title')} lead={t('curation.lead')} />
      <div className="card nw-filters">
        <form className="nw-filter-row" onSubmit={(e) => e.preventDefault()} aria-label={t('curation.filter')}>
          <div className="staff-field">
            <label htmlFor={`${id}-state`}>{t('curation.show')}</label>
            <select id={`${id}-state`} value={state} onChange={(e) => setParams(e.target.value === 'open' ? {} : { state: e.target.value })}>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {t(`curation.states.${s}`)}
                </option>
              ))}
            </select>
          </div>
        </form>
      </div>
      <Panel title={t(`curation.states.${state}`)} actions={list.data ? <span className="muted">{list.data.length >= LISTED ? t('curation.countMost', { n: number(LISTED) }) : t('curation.count', { count: list.data.length, n: number(list.data.length) })}</span> : null}>
        {list.failure ? (
          <ErrorState failure={list.failure} onRetry={() => void list.reload()} />
        ) : !list.data ? (
          <LoadingState />
        ) : (
          <DataTable fixed caption={t('curation.caption')} columns={columns} rows={list.data} rowKey={(c) => c.id} empty={state === 'open' ? t('curation.empty') : t('curation.noneDecided')} rowAttributes={(c) => ({ 'data-candidate': c.id })} />
        )}
      </Panel>
      <AliasDialog
        candidate={aliasing}
        onClose={() => setAliasing(null)}
        onDone={(c, entityName) => {
          setAliasing(null);
          notify(t('curation.aliased', { name: c.name, entity: entityName }));
          void after();
        }}
      />
    </>
  );
}

/** A candidate added as an alias of a catalogue entity (POST /admin/entity-candidates/{id}/alias), the entity found by a search. */
function AliasDialog({ candidate, onClose, onDone }: { candidate: Candidate | null; onClose: () => void; onDone: (c: Candidate, entityName: string) => void }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const failureText = useFailureText();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => {
    setError(null);
    onClose();
  };
  return (
    <Modal open={candidate !== null} title={candidate ? t('curation.aliasTitle', { name: candidate.name }) : ''} onClose={close} className="nw-dialog">
      {candidate ? (
        <div className="stack">
          <p className="muted">{t('curation.aliasLead', { name: candidate.name })}</p>
          <EntityPicker
            autoFocus
            label={t('curation.aliasSearch')}
            help={t('picker.help')}
            actionLabel={(e) => (
              <>
                {t('curation.choose')}
                <span className="visually-hidden"> {e.canonicalName}</span>
              </>
            )}
            onPick={(e) => {
              if (busy) return;
              setBusy(true);
              setError(null);
              newsApi
                .alias(candidate.id, e.id)
                .then(() => {
                  setError(null);
                  onDone(candidate, e.canonicalName);
                })
                .catch((err: unknown) => setError(failureText(failureOf(err))))
                .finally(() => setBusy(false));
            }}
          />
          {error ? (
            <p role="alert" className="error staff-dialog-error">
              {error}
            </p>
          ) : null}
          <div className="staff-dialog-actions">
            <button type="button" className="secondary" onClick={close}>
              {shell('ui.cancel')}
            </button>
          </div>
        </div>
      ) : null}
    </Modal>
  );
}
