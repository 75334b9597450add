/**
 * A news source added (POST /admin/sources) or changed (PATCH /admin/sources/{id}: only what was
 * changed is sent), in a dialog. A refusal is told on its field (400: the field's problem; 409: the
 * feed is read by another source) or, when it belongs to no field, above the buttons.
 */
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, SECTORS } from '../../../../models/news/article.rules';
import { POLL_MINUTES, SOURCE_TIERS } from '../../../../models/news/sources/source.rules';
import { STAFF_NS } from '../i18n';
import { Modal } from '../ui';
import { fieldProblems, newsApi, type NewSource, type Sector, type Source, type SourcePatch } from './api';
import { FieldError, NS, useNames, useProblem } from './parts';

const POLL_MIN = POLL_MINUTES.min;
const POLL_MAX = POLL_MINUTES.max;

type Field = 'name' | 'feedUrl' | 'tier' | 'language' | 'defaultSector' | 'pollIntervalMinutes' | 'enabled';

export function SourceDialog({ source, onClose, onSaved, onUnchanged }: { source: Source | 'new' | null; onClose: () => void; onSaved: (s: Source, added: boolean) => void; onUnchanged: () => void }) {
  const { t } = useTranslation(NS);
  const title = source === 'new' ? t('sources.form.addTitle') : source ? t('sources.form.editTitle', { name: source.name }) : '';
  return (
    <Modal open={source !== null} title={title} onClose={onClose} className="nw-dialog">
      {source ? <SourceForm source={source === 'new' ? null : source} onClose={onClose} onSaved={onSaved} onUnchanged={onUnchanged} /> : null}
    </Modal>
  );
}

function SourceForm({ source, onClose, onSaved, onUnchanged }: { source: Source | null; onClose: () => void; onSaved: (s: Source, added: boolean) => void; onUnchanged: () => void }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const names = useNames();
  const problem = useProblem();
  const id = useId();
  const [name, setName] = useState(source?.name ?? '');
  const [feedUrl, setFeedUrl] = useState(source?.feedUrl ?? '');
  const [tier, setTier] = useState<1 | 2 | 3>((source?.tier as 1 | 2 | 3 | undefined) ?? 2);
  const [language, setLanguage] = useState<NewSource['language']>(source?.language ?? 'pt');
  const [defaultSector, setDefaultSector] = useState<Sector | ''>(source?.defaultSector ?? '');
  const [interval, setPollEvery] = useState(String(source?.pollIntervalMinutes ?? POLL_MINUTES.default));
  const [enabled, setEnabled] = useState(source?.enabled ?? true);
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [alert, setAlert] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors({});
    setAlert(null);
    const whole: NewSource = { name: name.trim(), feedUrl: feedUrl.trim(), tier, language, defaultSector: defaultSector || null, pollIntervalMinutes: Number(interval), enabled };
    let body: SourcePatch = whole;
    if (source) {
      const changed: SourcePatch = {};
      if (whole.name !== source.name) changed.name = whole.name;
      if (whole.feedUrl !== source.feedUrl) changed.feedUrl = whole.feedUrl;
      if (whole.tier !== source.tier) changed.tier = whole.tier;
      if (whole.language !== source.language) changed.language = whole.language;
      if (whole.defaultSector !== source.defaultSector) changed.defaultSector = whole.defaultSector ?? null;
      if (whole.pollIntervalMinutes !== source.pollIntervalMinutes) changed.pollIntervalMinutes = whole.pollIntervalMinutes;
      if (whole.enabled !== source.enabled) changed.enabled = whole.enabled;
      if (Object.keys(changed).length === 0) {
        onUnchanged();
        return;
      }
      body = changed;
    }
    setBusy(true);
    try {
      const saved = source ? await newsApi.changeSource(source.id, body) : await newsApi.addSource(whole);
      onSaved(saved, !source);
    } catch (err) {
      const fields = fieldProblems(err);
      const found: Partial<Record<Field, string>> = {};
      for (const f of fields) {
        const key = f.path.split('.')[0] as Field;
        if (['name', 'feedUrl', 'tier', 'language', 'defaultSector', 'pollIntervalMinutes', 'enabled'].includes(key)) found[key] ??= f.message;
      }
      const p = problem(err);
      if (p.failure.kind === 'conflict' && /feed/i.test(p.failure.message)) found.feedUrl = t('sources.form.feedTaken');
      setErrors(found);
      if (Object.keys(found).length === 0) setAlert(p.text);
      else document.getElementById(`${id}-${Object.keys(found)[0]}`)?.focus();
    } finally {
      setBusy(false);
    }
  };

  const described = (field: Field, help?: boolean) => [help ? `${id}-${field}-help` : null, errors[field] ? `${id}-${field}-error` : null].filter(Boolean).join(' ') || undefined;

  return (
    <form className="stack nw-form" onSubmit={(e) => void submit(e)}>
      <div className="staff-field">
        <label htmlFor={`${id}-name`}>{t('sources.form.name')}</label>
        <input id={`${id}-name`} name="name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={!!errors.name} aria-describedby={described('name')} />
        <FieldError id={`${id}-name-error`} message={errors.name} />
      </div>
      <div className="staff-field">
        <label htmlFor={`${id}-feedUrl`}>{t('sources.form.feedUrl')}</label>
        <input
          id={`${id}-feedUrl`}
          name="feedUrl"
          type="url"
          required
          maxLength={2048}
          inputMode="url"
          value={feedUrl}
          onChange={(e) => setFeedUrl(e.target.value)}
          aria-invalid={!!errors.feedUrl}
          aria-describedby={described('feedUrl', true)}
        />
        <p id={`${id}-feedUrl-help`} className="muted staff-help">
          {t('sources.form.feedUrlHelp')}
        </p>
        <FieldError id={`${id}-feedUrl-error`} message={errors.feedUrl} />
      </div>
      <div className="nw-form-grid">
        <div className="staff-field">
          <label htmlFor={`${id}-tier`}>{t('sources.form.tier')}</label>
          <select id={`${id}-tier`} name="tier" value={tier} onChange={(e) => setTier(Number(e.target.value) as 1 | 2 | 3)} aria-describedby={described('tier')}>
            {SOURCE_TIERS.map((n) => (
              <option key={n} value={n}>
                {t(`sources.form.tiers.t${n}`)}
              </option>
            ))}
          </select>
          <FieldError id={`${id}-tier-error`} message={errors.tier} />
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-language`}>{t('sources.form.language')}</label>
          <select id={`${id}-language`} name="language" value={language} onChange={(e) => setLanguage(e.target.value as NewSource['language'])} aria-describedby={described('language')}>
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {names.language(l)}
              </option>
            ))}
          </select>
          <FieldError id={`${id}-language-error`} message={errors.language} />
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-defaultSector`}>{t('sources.form.defaultSector')}</label>
          <select id={`${id}-defaultSector`} name="defaultSector" value={defaultSector} onChange={(e) => setDefaultSector(e.target.value as Sector | '')} aria-describedby={described('defaultSector', true)}>
            <option value="">{t('sources.form.noSector')}</option>
            {SECTORS.map((s) => (
              <option key={s} value={s}>
                {names.sector(s)} ({s})
              </option>
            ))}
          </select>
          <p id={`${id}-defaultSector-help`} className="muted staff-help">
            {t('sources.form.defaultSectorHelp')}
          </p>
          <FieldError id={`${id}-defaultSector-error`} message={errors.defaultSector} />
        </div>
        <div className="staff-field">
          <label htmlFor={`${id}-pollIntervalMinutes`}>{t('sources.form.interval')}</label>
          <input
            id={`${id}-pollIntervalMinutes`}
            name="pollIntervalMinutes"
            type="number"
            required
            min={POLL_MIN}
            max={POLL_MAX}
            step={1}
            value={interval}
            onChange={(e) => setPollEvery(e.target.value)}
            aria-invalid={!!errors.pollIntervalMinutes}
            aria-describedby={described('pollIntervalMinutes', true)}
          />
          <p id={`${id}-pollIntervalMinutes-help`} className="muted staff-help">
            {t('sources.form.intervalHelp', { min: POLL_MIN, max: POLL_MAX })}
          </p>
          <FieldError id={`${id}-pollIntervalMinutes-error`} message={errors.pollIntervalMinutes} />
        </div>
      </div>
      <div className="check">
        <input id={`${id}-enabled`} name="enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <label htmlFor={`${id}-enabled`}>{t('sources.form.enabled')}</label>
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
          {busy ? t('common.saving') : source ? t('common.save') : t('sources.form.add')}
        </button>
      </div>
    </form>
  );
}
