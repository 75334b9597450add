/**
 * /staff/ai/providers: the MCP context providers read before an agent answers (GET
 * /ai/context-providers): stdio ones name a server the operator configured; http ones an address,
 * which may carry a credential and so is write-only here (shown masked, never filled back into a
 * form: left empty, the stored one is kept). Registering and changing one in a dialog (checked as
 * the API checks it), deleting one (confirmed; 409 while an agent uses it). An old stdio
 * registration the platform refuses to start says why.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { failureOf, useStaffResource, type Failure } from '../api';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Modal, Panel, useConfirm, useNotify, type Column } from '../ui';
import { aiApi, type Provider, type ProviderBody, type ProviderPatch } from './api';
import { maskUrl } from './secrets';
import { Field, focusFirstProblem, focusHeading, NS, useProblemText, useRegistryFailure } from './shared';
import { checkProvider, LIMITS, NAME_MAX, resourceLines, type ProviderField, type ProviderForm, type Problems } from './validate';

const HEADING = 'ai-providers-heading';

export function ProvidersView() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const confirm = useConfirm();
  const registryFailure = useRegistryFailure();
  const providers = useStaffResource<Provider[]>('/ai/context-providers');
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [refusal, setRefusal] = useState<Failure | null>(null);

  const remove = async (p: Provider) => {
    setRefusal(null);
    const ok = await confirm({ title: t('providers.deleteTitle', { name: p.name }), body: <p>{t('providers.deleteBody', { name: p.name })}</p>, confirmLabel: t('providers.delete'), danger: true });
    if (!ok) return;
    try {
      await aiApi.deleteProvider(p.name);
      notify(t('providers.deleted', { name: p.name }));
      await providers.reload();
      focusHeading(HEADING);
    } catch (err) {
      setRefusal(failureOf(err));
    }
  };

  const columns: Column<Provider>[] = [
    { header: t('providers.name'), rowHeader: true, width: 20, cell: (p) => <code className="ai-name">{p.name}</code> },
    { header: t('providers.description'), width: 24, cell: (p) => p.description || <span className="muted">—</span> },
    {
      header: t('providers.source'),
      width: 30,
      cell: (p) => (
        <>
          <span className="ai-tag">{t(`providers.transports.${p.transport}`)}</span>{' '}
          {p.transport === 'stdio' ? p.server ? <code>{p.server}</code> : null : p.url ? <code className="ai-url">{maskUrl(p.url)}</code> : null}
          {p.refused ? <p className="error ai-refused">{t('providers.refused', { reason: p.refused })}</p> : null}
          <br />
          <span className="muted small">{p.resources.length ? t('providers.resourcesCount', { count: p.resources.length }) : t('providers.allResources')}</span>
        </>
      ),
    },
    {
      header: t('actions'),
      width: 26,
      className: 'actions',
      cell: (p) => (
        <div className="staff-actions">
          <button type="button" className="secondary" onClick={() => setEditing(p)}>
            {t('edit')}
            <span className="visually-hidden"> {p.name}</span>
          </button>
          <button type="button" className="secondary danger-outline" onClick={() => void remove(p)}>
            {t('providers.delete')}
            <span className="visually-hidden"> {p.name}</span>
          </button>
        </div>
      ),
    },
  ];

  return (
    <Panel
      id={HEADING}
      title={t('providers.title')}
      actions={
        <button type="button" onClick={() => setEditing('new')} disabled={!providers.data}>
          {t('providers.register')}
        </button>
      }
    >
      <p className="muted ai-help">{t('providers.lead')}</p>
      {refusal ? (
        <div role="alert" className="staff-refusal">
          <p className="error">{registryFailure(refusal)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {providers.failure ? (
        <ErrorState failure={providers.failure} onRetry={() => void providers.reload()} />
      ) : !providers.data ? (
        <LoadingState />
      ) : (
        <DataTable fixed caption={t('providers.caption')} columns={columns} rows={providers.data} rowKey={(p) => p.name} empty={t('providers.none')} rowAttributes={(p) => ({ 'data-provider': p.name })} />
      )}
      <Modal open={editing !== null} title={editing === 'new' ? t('providers.registerTitle') : editing ? t('providers.editTitle', { name: editing.name }) : ''} onClose={() => setEditing(null)} className="ai-dialog">
        {editing !== null ? (
          <ProviderFormBody
            provider={editing === 'new' ? null : editing}
            taken={(providers.data ?? []).map((p) => p.name)}
            onCancel={() => setEditing(null)}
            onSaved={async (name, created) => {
              setEditing(null);
              notify(created ? t('providers.registered', { name }) : t('providers.updated', { name }));
              await providers.reload();
            }}
          />
        ) : null}
      </Modal>
    </Panel>
  );
}

function ProviderFormBody({ provider, taken, onCancel, onSaved }: { provider: Provider | null; taken: string[]; onCancel: () => void; onSaved: (name: string, created: boolean) => Promise<void> }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const problemText = useProblemText();
  const registryFailure = useRegistryFailure();
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const isNew = provider === null;
  // The address is never filled back in (it may carry a credential): left empty, the stored one is kept.
  const [f, setF] = useState<ProviderForm>({
    name: '',
    description: provider?.description ?? '',
    transport: provider?.transport ?? 'stdio',
    server: provider?.server ?? '',
    url: '',
    resources: (provider?.resources ?? []).join('\n'),
  });
  const [problems, setProblems] = useState<Problems<ProviderField>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);

  const set = <K extends ProviderField>(k: K, v: ProviderForm[K]) => {
    setF((prev) => ({ ...prev, [k]: v }));
    if (problems[k]) setProblems((prev) => ({ ...prev, [k]: undefined }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    const found = checkProvider(f, { isNew, taken });
    setProblems(found);
    if (Object.values(found).some(Boolean)) {
      requestAnimationFrame(() => focusFirstProblem(form.current));
      return;
    }
    const resources = resourceLines(f.resources);
    setBusy(true);
    try {
      if (isNew) {
        const body: ProviderBody =
          f.transport === 'stdio'
            ? { name: f.name, description: f.description, transport: 'stdio', server: f.server, resources }
            : { name: f.name, description: f.description, transport: 'http', url: f.url.trim(), resources };
        await aiApi.registerProvider(body);
        await onSaved(f.name, true);
        return;
      }
      const patch: ProviderPatch = {};
      if (f.description !== provider.description) patch.description = f.description;
      if (f.transport === 'stdio' && f.server && f.server !== provider.server) patch.server = f.server;
      if (f.transport === 'http' && f.url.trim()) patch.url = f.url.trim();
      if (resources.join('\n') !== provider.resources.join('\n')) patch.resources = resources;
      if (Object.keys(patch).length === 0) {
        notify(t('unchanged'), 'info');
        onCancel();
        return;
      }
      await aiApi.updateProvider(provider.name, patch);
      await onSaved(provider.name, false);
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} className="ai-form" onSubmit={(e) => void submit(e)} noValidate>
      {isNew ? (
        <>
          <Field id={`${id}-name`} label={t('providers.name')} help={t('providers.nameHelp', { max: NAME_MAX })} error={problemText(problems.name)}>
            {(d, invalid) => <input id={`${id}-name`} type="text" autoComplete="off" spellCheck={false} required maxLength={NAME_MAX} value={f.name} onChange={(e) => set('name', e.target.value.trim())} aria-describedby={d} aria-invalid={invalid || undefined} />}
          </Field>
          <fieldset className="ai-radios">
            <legend>{t('providers.transport')}</legend>
            {(['stdio', 'http'] as const).map((tr) => (
              <div key={tr} className="ai-radio">
                <input type="radio" id={`${id}-transport-${tr}`} name={`${id}-transport`} value={tr} checked={f.transport === tr} onChange={() => set('transport', tr)} aria-describedby={`${id}-transport-${tr}-d`} />
                <label htmlFor={`${id}-transport-${tr}`}>{t(`providers.transports.${tr}`)}</label>
                <span id={`${id}-transport-${tr}-d`} className="muted ai-check-help">
                  {t(`providers.transportHelp.${tr}`)}
                </span>
              </div>
            ))}
          </fieldset>
        </>
      ) : null}
      <Field id={`${id}-description`} label={t('providers.description')} help={t('optionalMax', { max: LIMITS.providerDescription })} error={problemText(problems.description)}>
        {(d, invalid) => <input id={`${id}-description`} type="text" value={f.description} onChange={(e) => set('description', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      {f.transport === 'stdio' ? (
        <Field id={`${id}-server`} label={t('providers.server')} help={t('providers.serverHelp')} error={problemText(problems.server)}>
          {(d, invalid) => <input id={`${id}-server`} type="text" autoComplete="off" spellCheck={false} required={isNew} maxLength={NAME_MAX} value={f.server} onChange={(e) => set('server', e.target.value.trim())} aria-describedby={d} aria-invalid={invalid || undefined} />}
        </Field>
      ) : (
        <Field id={`${id}-url`} label={t('providers.url')} help={isNew || !provider.url ? t('providers.urlHelp') : t('secretKeep', { current: maskUrl(provider.url) })} error={problemText(problems.url)}>
          {(d, invalid) => <input id={`${id}-url`} type="url" autoComplete="off" spellCheck={false} required={isNew} value={f.url} onChange={(e) => set('url', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
        </Field>
      )}
      <Field id={`${id}-resources`} label={t('providers.resources')} help={t('providers.resourcesHelp', { max: LIMITS.resources })} error={problemText(problems.resources)}>
        {(d, invalid) => <textarea id={`${id}-resources`} className="ai-code-input" rows={3} spellCheck={false} value={f.resources} onChange={(e) => set('resources', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      {failure ? (
        <p role="alert" className="error ai-form-error">
          {registryFailure(failure)}
        </p>
      ) : null}
      <div className="staff-dialog-actions">
        <button type="button" className="secondary" onClick={onCancel}>
          {shell('ui.cancel')}
        </button>
        <button type="submit" disabled={busy}>
          {busy ? t('saving') : isNew ? t('providers.registerSubmit') : t('save')}
        </button>
      </div>
    </form>
  );
}
