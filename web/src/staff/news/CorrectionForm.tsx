/**
 * Correcting the model (PUT /admin/articles/{id}/correction): an article's classification (primary
 * and secondary sectors and topics), sentiment (label, and a score within the label's fifth) and
 * entities (catalogue entities, each with an optional sentiment toward it), beside what the model
 * said. The allowed codes are the model's own (models/news/article.rules.ts).
 *
 * What is sent: the labels the evaluation reads, always; the secondary lists only when they differ
 * from the model's (absent: the model's stand, which follows later enrichments); the score and an
 * entity's sentiment only when given (absent: the model's when it agrees, else the label's middle).
 */
import { useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { SECTORS, SENTIMENT_LABELS, sentimentLabel, TOPICS } from '../../../../models/news/article.rules';
import { sectionNs } from '../i18n';
import { useNotify } from '../ui';
import { fieldProblems, newsApi, type ArticleDetail, type ArticleEntity, type ArticleView, type CorrectionRequest, type Entity, type EntityType, type Sector, type SentimentLabel, type Topic } from './api';
import { Badge, Editor, EntityPicker, FieldError, useNames, useNumber, useProblem, When } from './parts';

const NS = sectionNs('news');

/** What the model says for the fields an editor labels. */
interface ModelOutput {
  primarySector: Sector;
  primaryTopic: Topic;
  secondarySectors: Sector[];
  secondaryTopics: Topic[];
  sentiment: { label: SentimentLabel; score: number; confidence: number } | null;
  entities: ArticleEntity[];
}

/** The model's output: kept on the correction once there is one, else what the article shows (the model's enrichment, or an import's values). */
export function modelOutputOf(detail: ArticleDetail, article: ArticleView): ModelOutput {
  if (detail.correction) {
    const m = detail.correction.model;
    return { ...m, sentiment: m.sentiment ?? null };
  }
  return {
    primarySector: article.primarySector,
    primaryTopic: article.primaryTopic,
    secondarySectors: article.classification?.secondarySectors ?? [],
    secondaryTopics: article.classification?.secondaryTopics ?? [],
    sentiment: article.sentimentLabel && typeof article.sentimentScore === 'number' ? { label: article.sentimentLabel, score: article.sentimentScore, confidence: article.sentimentConfidence ?? 0 } : null,
    entities: article.entities ?? [],
  };
}

/** The score range of a label (fifths of -1…1; models/news/article.rules.ts sentimentLabel). */
const RANGES: Record<SentimentLabel, [number, number]> = { MUITO_NEGATIVO: [-1, -0.6], NEGATIVO: [-0.6, -0.2], NEUTRO: [-0.2, 0.2], POSITIVO: [0.2, 0.6], MUITO_POSITIVO: [0.6, 1] };
const MIDDLE: Record<SentimentLabel, number> = { MUITO_NEGATIVO: -0.8, NEGATIVO: -0.4, NEUTRO: 0, POSITIVO: 0.4, MUITO_POSITIVO: 0.8 };

interface Chosen {
  entityId: string;
  canonicalName: string;
  entityType: EntityType;
  ticker: string | null;
  /** The sentiment toward it, as typed ('' = the model's, else the article's). */
  sentiment: string;
}

const sameSet = <T,>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x) => b.includes(x));

/** A number typed in a field ('' = none), or NaN when it is no number. */
const parsed = (s: string): number | null => (s.trim() === '' ? null : Number(s.replace(',', '.')));

type Problems = Partial<Record<'primarySector' | 'primaryTopic' | 'secondarySectors' | 'secondaryTopics' | 'sentimentLabel' | 'sentimentScore' | 'entities' | 'note', string>> & { entity?: Record<string, string> };

export function CorrectionForm({ detail, article, onSaved }: { detail: ArticleDetail; article: ArticleView; onSaved: (d: ArticleDetail) => void }) {
  const { t } = useTranslation(NS);
  const names = useNames();
  const number = useNumber();
  const notify = useNotify();
  const problem = useProblem();
  const id = useId();
  const model = useMemo(() => modelOutputOf(detail, article), [detail, article]);
  const labels = detail.correction?.labels;

  const [primarySector, setPrimarySector] = useState<Sector>(labels?.primarySector ?? model.primarySector);
  const [primaryTopic, setPrimaryTopic] = useState<Topic>(labels?.primaryTopic ?? model.primaryTopic);
  const [secondarySectors, setSecondarySectors] = useState<Sector[]>(labels?.secondarySectors ?? model.secondarySectors);
  const [secondaryTopics, setSecondaryTopics] = useState<Topic[]>(labels?.secondaryTopics ?? model.secondaryTopics);
  const [label, setLabel] = useState<SentimentLabel>(labels?.sentimentLabel ?? model.sentiment?.label ?? 'NEUTRO');
  const [score, setScore] = useState(labels ? String(labels.sentimentScore) : '');
  const [entities, setEntities] = useState<Chosen[]>(
    labels
      ? labels.entities.map((e) => ({ entityId: e.entityId, canonicalName: e.canonicalName, entityType: e.entityType, ticker: e.ticker, sentiment: e.sentiment === null ? '' : String(e.sentiment) }))
      : model.entities.map((e) => ({ entityId: e.entityId, canonicalName: e.canonicalName, entityType: e.entityType, ticker: e.ticker ?? null, sentiment: '' })),
  );
  const [note, setNote] = useState(detail.correction?.note ?? '');
  const [problems, setProblems] = useState<Problems>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const modelEntity = (entityId: string) => model.entities.find((e) => e.entityId === entityId);
  const [lo, hi] = RANGES[label];

  /** A field's problem is told until the field changes. */
  const clear = (field: keyof Omit<Problems, 'entity'>) => setProblems((p) => (p[field] ? { ...p, [field]: undefined } : p));
  const clearEntity = (entityId: string) => setProblems((p) => (p.entity?.[entityId] ? { ...p, entity: { ...p.entity, [entityId]: '' } } : p));

  const chooseLabel = (next: SentimentLabel) => {
    setLabel(next);
    clear('sentimentLabel');
    clear('sentimentScore');
    // A score of another label's fifth would be refused: start again from the label's.
    const s = parsed(score);
    if (s !== null && !Number.isNaN(s) && sentimentLabel(s) !== next) setScore('');
  };

  const check = (): Problems => {
    const found: Problems = {};
    const s = parsed(score);
    if (s !== null && (Number.isNaN(s) || s < -1 || s > 1)) found.sentimentScore = t('correction.scoreRange');
    else if (s !== null && sentimentLabel(s) !== label) found.sentimentScore = t('correction.scoreLabel', { score: s, actual: names.sentiment(sentimentLabel(s)), label: names.sentiment(label) });
    for (const e of entities) {
      const v = parsed(e.sentiment);
      if (v !== null && (Number.isNaN(v) || v < -1 || v > 1)) (found.entity ??= {})[e.entityId] = t('correction.scoreRange');
    }
    return found;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setAlert(null);
    const local = check();
    setProblems(local);
    if (Object.keys(local).length) {
      form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    const s = parsed(score);
    const sectors = secondarySectors.filter((x) => x !== primarySector);
    const topics = secondaryTopics.filter((x) => x !== primaryTopic);
    const body: CorrectionRequest = {
      primarySector,
      primaryTopic,
      sentimentLabel: label,
      entities: entities.map((x) => {
        const v = parsed(x.sentiment);
        return v === null ? { entityId: x.entityId } : { entityId: x.entityId, sentiment: v };
      }),
      ...(sameSet(sectors, model.secondarySectors.filter((x) => x !== primarySector)) ? {} : { secondarySectors: sectors }),
      ...(sameSet(topics, model.secondaryTopics.filter((x) => x !== primaryTopic)) ? {} : { secondaryTopics: topics }),
      ...(s === null ? {} : { sentimentScore: s }),
      ...(note.trim() ? { note: note.trim() } : {}),
    };
    setBusy(true);
    try {
      const saved = await newsApi.correct(detail.id, body);
      notify(t('correction.saved'));
      onSaved(saved);
    } catch (err) {
      const found: Problems = {};
      for (const f of fieldProblems(err)) {
        const [field, index] = f.path.split('.');
        if (field === 'entities' && index !== undefined && entities[Number(index)]) (found.entity ??= {})[entities[Number(index)]!.entityId] = f.message;
        else if (field && ['primarySector', 'primaryTopic', 'secondarySectors', 'secondaryTopics', 'sentimentLabel', 'sentimentScore', 'entities', 'note'].includes(field)) found[field as keyof Omit<Problems, 'entity'>] ??= f.message;
      }
      setProblems(found);
      if (Object.keys(found).length === 0) setAlert(problem(err).text);
      else window.setTimeout(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
    } finally {
      setBusy(false);
    }
  };

  const changed = (yes: boolean) => (yes ? <Badge tone="info">{t('correction.changed')}</Badge> : null);
  const codes = (list: readonly string[], name: (c: never) => string) => (list.length ? list.map((c) => name(c as never)).join(', ') : t('common.none'));

  return (
    <div className="nw-correct">
      <section className="nw-model" aria-labelledby={`${id}-model`}>
        <h3 id={`${id}-model`}>{t('correction.model')}</h3>
        <p className="muted small">{detail.correction ? t('correction.modelAfter') : detail.enrichment ? t('correction.modelNow') : t('correction.modelImport')}</p>
        <dl className="nw-dl">
          <dt>{t('correction.primarySector')}</dt>
          <dd data-model="primarySector">{names.sector(model.primarySector)}</dd>
          <dt>{t('correction.primaryTopic')}</dt>
          <dd data-model="primaryTopic">{names.topic(model.primaryTopic)}</dd>
          <dt>{t('correction.secondarySectors')}</dt>
          <dd>{codes(model.secondarySectors, names.sector)}</dd>
          <dt>{t('correction.secondaryTopics')}</dt>
          <dd>{codes(model.secondaryTopics, names.topic)}</dd>
          <dt>{t('correction.sentiment')}</dt>
          <dd data-model="sentiment">
            {model.sentiment
              ? t('correction.sentimentValue', { label: names.sentiment(model.sentiment.label), score: number(model.sentiment.score, { signDisplay: 'exceptZero', maximumFractionDigits: 2 }), confidence: number(model.sentiment.confidence, { style: 'percent' }) })
              : t('common.none')}
          </dd>
          <dt>{t('correction.entities')}</dt>
          <dd>
            {model.entities.length === 0 ? (
              t('correction.noEntities')
            ) : (
              <ul className="nw-plain">
                {model.entities.map((e) => (
                  <li key={e.entityId}>
                    <strong>{e.canonicalName}</strong>
                    <span className="muted small">
                      {' '}
                      · {names.entityType(e.entityType)}
                      {e.ticker ? ` · ${e.ticker}` : ''} · {t('correction.entityModel', { sentiment: number(e.sentiment, { signDisplay: 'exceptZero', maximumFractionDigits: 2 }), count: e.mentionCount })}
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      </section>

      <form ref={form} className="nw-correction-form stack" aria-labelledby={`${id}-yours`} onSubmit={(e) => void submit(e)} noValidate>
        <h3 id={`${id}-yours`}>{t('correction.yours')}</h3>
        {detail.correction ? (
          <p className="muted small">
            {t('correction.lastBy')} <Editor by={detail.correction.by} />, <When iso={detail.correction.at} />
            {detail.correction.note ? <span className="nw-block">{t('correction.lastNote', { note: detail.correction.note })}</span> : null}
          </p>
        ) : null}
        <div className="nw-form-grid">
          <Field id={`${id}-ps`} label={t('correction.primarySector')} extra={changed(primarySector !== model.primarySector)} error={problems.primarySector}>
            <select
              id={`${id}-ps`}
              value={primarySector}
              onChange={(e) => {
                setPrimarySector(e.target.value as Sector);
                clear('primarySector');
              }} aria-invalid={!!problems.primarySector} aria-describedby={problems.primarySector ? `${id}-ps-error` : undefined}>
              {SECTORS.map((s) => (
                <option key={s} value={s}>
                  {names.sector(s)} ({s})
                </option>
              ))}
            </select>
          </Field>
          <Field id={`${id}-pt`} label={t('correction.primaryTopic')} extra={changed(primaryTopic !== model.primaryTopic)} error={problems.primaryTopic}>
            <select
              id={`${id}-pt`}
              value={primaryTopic}
              onChange={(e) => {
                setPrimaryTopic(e.target.value as Topic);
                clear('primaryTopic');
              }} aria-invalid={!!problems.primaryTopic} aria-describedby={problems.primaryTopic ? `${id}-pt-error` : undefined}>
              {TOPICS.map((s) => (
                <option key={s} value={s}>
                  {names.topic(s)} ({s})
                </option>
              ))}
            </select>
          </Field>
        </div>

        <CodeChoices
          legend={t('correction.secondarySectors')}
          summary={codes(secondarySectors.filter((s) => s !== primarySector), names.sector)}
          changed={changed(!sameSet(secondarySectors.filter((s) => s !== primarySector), model.secondarySectors.filter((s) => s !== primarySector)))}
          codes={SECTORS}
          value={secondarySectors}
          primary={primarySector}
          name={names.sector}
          onChange={(v) => setSecondarySectors(v as Sector[])}
          error={problems.secondarySectors}
          help={t('correction.secondaryHelp')}
        />
        <CodeChoices
          legend={t('correction.secondaryTopics')}
          summary={codes(secondaryTopics.filter((s) => s !== primaryTopic), names.topic)}
          changed={changed(!sameSet(secondaryTopics.filter((s) => s !== primaryTopic), model.secondaryTopics.filter((s) => s !== primaryTopic)))}
          codes={TOPICS}
          value={secondaryTopics}
          primary={primaryTopic}
          name={names.topic}
          onChange={(v) => setSecondaryTopics(v as Topic[])}
          error={problems.secondaryTopics}
          help={t('correction.secondaryHelp')}
        />

        <fieldset className="nw-fieldset">
          <legend>
            {t('correction.sentiment')} {changed(label !== model.sentiment?.label || (parsed(score) !== null && parsed(score) !== model.sentiment?.score))}
          </legend>
          <div className="nw-form-grid">
            <Field id={`${id}-sl`} label={t('correction.sentimentLabel')} error={problems.sentimentLabel}>
              <select id={`${id}-sl`} value={label} onChange={(e) => chooseLabel(e.target.value as SentimentLabel)} aria-invalid={!!problems.sentimentLabel}>
                {SENTIMENT_LABELS.map((l) => (
                  <option key={l} value={l}>
                    {names.sentiment(l)}
                  </option>
                ))}
              </select>
            </Field>
            <Field id={`${id}-ss`} label={t('correction.sentimentScore')} error={problems.sentimentScore} help={t('correction.scoreHelp', { min: lo, max: hi, middle: MIDDLE[label] })}>
              <input
                id={`${id}-ss`}
                type="number"
                inputMode="decimal"
                min={lo}
                max={hi}
                step={0.01}
                value={score}
                onChange={(e) => {
                  setScore(e.target.value);
                  clear('sentimentScore');
                }}
                aria-invalid={!!problems.sentimentScore}
                aria-describedby={[`${id}-ss-help`, problems.sentimentScore ? `${id}-ss-error` : ''].filter(Boolean).join(' ')}
              />
            </Field>
          </div>
        </fieldset>

        <fieldset className="nw-fieldset" aria-describedby={`${id}-entities-help`}>
          <legend>
            {t('correction.entities')} {changed(!sameSet(entities.map((e) => e.entityId), model.entities.map((e) => e.entityId)) || entities.some((e) => e.sentiment !== ''))}
          </legend>
          <p id={`${id}-entities-help`} className="muted staff-help">
            {t('correction.entitiesHelp')}
          </p>
          <FieldError id={`${id}-entities-error`} message={problems.entities} />
          {entities.length === 0 ? (
            <p className="muted">{t('correction.noEntities')}</p>
          ) : (
            <ul className="nw-entities">
              {entities.map((e) => {
                const m = modelEntity(e.entityId);
                const err = problems.entity?.[e.entityId];
                return (
                  <li key={e.entityId} data-entity={e.entityId}>
                    <div className="nw-entity-name">
                      <strong>{e.canonicalName}</strong>
                      <span className="muted small">
                        {' '}
                        · {names.entityType(e.entityType)}
                        {e.ticker ? ` · ${e.ticker}` : ''}
                      </span>
                      <span className="nw-block muted small">
                        {m ? t('correction.entityModel', { sentiment: number(m.sentiment, { signDisplay: 'exceptZero', maximumFractionDigits: 2 }), count: m.mentionCount }) : t('correction.entityNew')}
                      </span>
                    </div>
                    <div className="staff-field nw-entity-sentiment">
                      <label htmlFor={`${id}-es-${e.entityId}`}>{t('correction.entitySentiment', { name: e.canonicalName })}</label>
                      <input
                        id={`${id}-es-${e.entityId}`}
                        type="number"
                        inputMode="decimal"
                        min={-1}
                        max={1}
                        step={0.01}
                        placeholder={m ? String(Math.round(m.sentiment * 100) / 100) : ''}
                        value={e.sentiment}
                        onChange={(ev) => {
                          setEntities((list) => list.map((x) => (x.entityId === e.entityId ? { ...x, sentiment: ev.target.value } : x)));
                          clearEntity(e.entityId);
                        }}
                        aria-invalid={!!err}
                        aria-describedby={err ? `${id}-es-${e.entityId}-error` : undefined}
                      />
                      <FieldError id={`${id}-es-${e.entityId}-error`} message={err} />
                    </div>
                    <button type="button" className="secondary danger-outline" onClick={() => setEntities((list) => list.filter((x) => x.entityId !== e.entityId))}>
                      {t('correction.remove')}
                      <span className="visually-hidden"> {e.canonicalName}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          <EntityPicker
            clearOnPick
            label={t('correction.addEntity')}
            help={t('correction.searchHelp')}
            exclude={entities.map((e) => e.entityId)}
            actionLabel={(x: Entity) => (
              <>
                {t('correction.add')}
                <span className="visually-hidden"> {x.canonicalName}</span>
              </>
            )}
            onPick={(x) => {
              clear('entities');
              setEntities((list) => (list.some((e) => e.entityId === x.id) ? list : [...list, { entityId: x.id, canonicalName: x.canonicalName, entityType: x.entityType, ticker: x.ticker, sentiment: '' }]));
            }}
          />
        </fieldset>

        <Field id={`${id}-note`} label={t('correction.note')} error={problems.note} help={t('correction.noteHelp')}>
          <textarea
            id={`${id}-note`}
            rows={2}
            maxLength={500}
            value={note}
            onChange={(e) => {
              setNote(e.target.value);
              clear('note');
            }}
            aria-describedby={`${id}-note-help`}
          />
        </Field>

        {alert ? (
          <p role="alert" className="error">
            {alert}
          </p>
        ) : null}
        <div>
          <button type="submit" disabled={busy}>
            {busy ? t('common.saving') : t('correction.save')}
          </button>
        </div>
      </form>
    </div>
  );
}

/** A label, the control, its help and its error. */
function Field({ id, label, extra, error, help, children }: { id: string; label: string; extra?: ReactNode; error?: string | undefined; help?: string; children: ReactNode }) {
  return (
    <div className="staff-field">
      <label htmlFor={id}>
        {label} {extra}
      </label>
      {children}
      {help ? (
        <p id={`${id}-help`} className="muted staff-help">
          {help}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** A set of codes as checkboxes, folded under its summary (the codes chosen); the primary one is not offered. */
function CodeChoices({
  legend,
  summary,
  changed,
  codes,
  value,
  primary,
  name,
  onChange,
  error,
  help,
}: {
  legend: string;
  summary: string;
  changed: ReactNode;
  codes: readonly string[];
  value: readonly string[];
  primary: string;
  name: (code: never) => string;
  onChange: (v: string[]) => void;
  error?: string | undefined;
  help: string;
}) {
  const id = useId();
  return (
    <details className="nw-codes">
      <summary>
        <span className="nw-codes-legend">{legend}</span> {changed}
        <span className="nw-block muted small">{summary}</span>
      </summary>
      <fieldset aria-describedby={`${id}-help`}>
        <legend className="visually-hidden">{legend}</legend>
        <p id={`${id}-help`} className="muted staff-help">
          {help}
        </p>
        <FieldError id={`${id}-error`} message={error} />
        <ul className="nw-code-grid">
          {codes
            .filter((c) => c !== primary)
            .map((c) => (
              <li key={c}>
                <input
                  id={`${id}-${c}`}
                  type="checkbox"
                  checked={value.includes(c)}
                  onChange={(e) => onChange(e.target.checked ? [...value, c] : value.filter((x) => x !== c))}
                />
                <label htmlFor={`${id}-${c}`}>
                  {name(c as never)} <span className="muted small">({c})</span>
                </label>
              </li>
            ))}
        </ul>
      </fieldset>
    </details>
  );
}
