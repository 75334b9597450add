/**
 * /staff/news/articles/:id: one article as editors see it (GET /admin/articles/{id}): its place in
 * the pipeline (state, whether readers see it, why it failed, waits or was hidden), its last
 * enrichment by the model (model, prompt version, tokens, cost), hiding it from readers (with a
 * reason, in a dialog) and showing it again, and the correction of the model beside its output.
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { failureOf, useStaffResource } from '../api';
import { STAFF_NS } from '../i18n';
import { ErrorState, LoadingState, Modal, Panel, useFailureText, useNotify } from '../ui';
import { CorrectionForm } from './CorrectionForm';
import { newsApi, newsPaths, type ArticleDetail } from './api';
import { Badge, Editor, FieldError, NewsHeader, NS, STATE_TONE, useNames, useNumber, When } from './parts';

export default function ArticlePage({ articleId }: { articleId: string }) {
  const { t } = useTranslation(NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const failureText = useFailureText();
  const location = useLocation();
  const back = typeof (location.state as { back?: unknown } | null)?.back === 'string' ? (location.state as { back: string }).back : '';
  const resource = useStaffResource<ArticleDetail>(newsPaths.article(articleId));
  const [saved, setSaved] = useState<ArticleDetail | null>(null);
  const [hiding, setHiding] = useState(false);
  const [busy, setBusy] = useState(false);
  // The form starts afresh from each saved correction.
  const [formKey, setFormKey] = useState(0);
  const detail = saved && resource.data && saved.id === resource.data.id && !resource.loading ? saved : resource.data;

  const reload = async () => {
    setSaved(null);
    await resource.reload();
  };

  const unhide = async () => {
    setBusy(true);
    try {
      await newsApi.unhide(articleId);
      notify(t('article.unhidden'));
      await reload();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    } finally {
      setBusy(false);
    }
  };

  const header = (
    <NewsHeader
      title={detail?.title ?? t('article.title')}
      lead={
        detail ? (
          <>
            {detail.sourceName ?? t('articles.imported')} · <When iso={detail.publishedAt} />
          </>
        ) : undefined
      }
    />
  );
  const backLink = (
    <p className="nw-back">
      <Link to={`/staff/news/articles${back}`}>
        <span aria-hidden="true">← </span>
        {t('article.back')}
      </Link>
    </p>
  );

  if (resource.failure && !detail) {
    return (
      <>
        {header}
        {backLink}
        <ErrorState failure={resource.failure} onRetry={() => void reload()} />
      </>
    );
  }
  if (!detail) {
    return (
      <>
        {header}
        {backLink}
        <LoadingState />
      </>
    );
  }

  const e = detail.enrichment;
  const article = detail.article;
  const canHide = detail.state !== 'hidden' && article !== null;
  return (
    <>
      {header}
      {backLink}
      <Panel
        title={t('article.pipeline')}
        actions={
          detail.state === 'hidden' ? (
            <button type="button" onClick={() => void unhide()} disabled={busy}>
              {t('article.unhide')}
            </button>
          ) : canHide ? (
            <button type="button" className="secondary danger-outline" onClick={() => setHiding(true)}>
              {t('article.hide')}
            </button>
          ) : null
        }
      >
        <dl className="nw-dl nw-dl-wide" data-testid="article-pipeline">
          <dt>{t('articles.state')}</dt>
          <dd>
            <Badge tone={STATE_TONE[detail.state]}>{names.state(detail.state)}</Badge>{' '}
            {detail.visible ? <span className="ok">{t('articles.visible')}</span> : <span className="muted">{detail.state === 'hidden' ? t('articles.hiddenFromReaders') : t('articles.notPublished')}</span>}
          </dd>
          {detail.reason && detail.state !== 'hidden' ? (
            <>
              <dt>{t('article.reason')}</dt>
              <dd className="nw-reason">{detail.reason}</dd>
            </>
          ) : null}
          {detail.hidden ? (
            <>
              <dt>{t('article.hiddenBy')}</dt>
              <dd>
                <Editor by={detail.hidden.by} /> · <When iso={detail.hidden.at} />
                {detail.hidden.reason ? <span className="nw-block nw-reason">{t('article.hiddenReason', { reason: detail.hidden.reason })}</span> : null}
              </dd>
            </>
          ) : null}
          {detail.corrected ? (
            <>
              <dt>{t('article.corrected')}</dt>
              <dd>
                <Editor by={detail.corrected.by} /> · <When iso={detail.corrected.at} />
              </dd>
            </>
          ) : null}
          <dt>{t('article.url')}</dt>
          <dd>
            <a href={detail.url} target="_blank" rel="noopener noreferrer" className="nw-url">
              {detail.url}
              <span className="visually-hidden"> {t('article.newTab')}</span>
            </a>
          </dd>
          {detail.primarySector ? (
            <>
              <dt>{t('articles.classification')}</dt>
              <dd>
                {names.sector(detail.primarySector)} · {names.topic(detail.primaryTopic)}
                {detail.isBreaking ? (
                  <>
                    {' '}
                    <Badge tone="warn">{t('article.breaking')}</Badge>
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
          <dt>{t('article.enrichment')}</dt>
          <dd>
            {e ? (
              <>
                <span className="nw-block">
                  {t('article.enrichedWith', { model: e.model ?? '—', version: e.promptVersion ?? '—' })} · <When iso={e.at} />
                </span>
                <span className="nw-block muted small">
                  {t('article.usage', {
                    attempts: e.attempts,
                    count: e.attempts,
                    prompt: number(e.promptTokens),
                    completion: number(e.completionTokens),
                    cost: number(e.costUsd, { style: 'currency', currency: 'USD', maximumFractionDigits: 4 }),
                  })}
                </span>
                {e.error && e.error !== detail.reason ? <span className="nw-block nw-reason">{e.error}</span> : null}
              </>
            ) : detail.state === 'imported' ? (
              t('article.neverEnriched')
            ) : (
              t('article.notEnrichedYet')
            )}
          </dd>
          <dt>{t('article.workflow')}</dt>
          <dd>
            <code className="nw-code">{detail.workflowId}</code>
          </dd>
        </dl>
        {article?.summary ? <p className="nw-summary">{article.summary}</p> : null}
      </Panel>

      <Panel title={t('correction.title')}>
        {article === null ? (
          <p className="muted">{t('article.notPublishedYet')}</p>
        ) : detail.state === 'hidden' ? (
          <p className="muted">{t('article.hiddenNoCorrection')}</p>
        ) : (
          <>
            <p className="muted">{t('correction.lead')}</p>
            <CorrectionForm
              key={formKey}
              detail={detail}
              article={article}
              onSaved={(d) => {
                setSaved(d);
                setFormKey((k) => k + 1);
              }}
            />
          </>
        )}
      </Panel>

      <HideDialog
        open={hiding}
        title={detail.title}
        articleId={articleId}
        onClose={() => setHiding(false)}
        onHidden={() => {
          setHiding(false);
          notify(t('article.hidden'));
          void reload();
        }}
      />
    </>
  );
}

/** Hiding an article (POST /admin/articles/{id}/hide), with an optional reason for the other editors. */
function HideDialog({ open, title, articleId, onClose, onHidden }: { open: boolean; title: string; articleId: string; onClose: () => void; onHidden: () => void }) {
  const { t } = useTranslation(NS);
  return (
    <Modal open={open} title={t('article.hideTitle')} onClose={onClose} className="nw-dialog">
      {open ? <HideForm title={title} articleId={articleId} onClose={onClose} onHidden={onHidden} /> : null}
    </Modal>
  );
}

function HideForm({ title, articleId, onClose, onHidden }: { title: string; articleId: string; onClose: () => void; onHidden: () => void }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const failureText = useFailureText();
  const id = useId();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      await newsApi.hide(articleId, reason.trim() || undefined);
      onHidden();
    } catch (err) {
      setError(failureText(failureOf(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={(e) => void submit(e)}>
      <p className="nw-dialog-subject">{title}</p>
      <p className="muted">{t('article.hideBody')}</p>
      <div className="staff-field">
        <label htmlFor={`${id}-reason`}>{t('article.reasonLabel')}</label>
        <textarea id={`${id}-reason`} rows={3} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`} data-autofocus="" />
        <p id={`${id}-help`} className="muted staff-help">
          {t('article.reasonHelp')}
        </p>
        <FieldError id={`${id}-error`} message={error} />
      </div>
      <div className="staff-dialog-actions">
        <button type="button" className="secondary" onClick={onClose}>
          {shell('ui.cancel')}
        </button>
        <button type="submit" className="danger" disabled={busy}>
          {t('article.hideConfirm')}
        </button>
      </div>
    </form>
  );
}
