/**
 * /staff/ai: the agents (built-in and registered: GET /ai/agents), each with its model, temperature,
 * tools and context providers; registering one and changing a registered one in a dialog (checked as
 * the API checks it), deleting one (confirmed), trying one in the playground.
 */
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { failureOf, useStaffResource, type Failure } from '../api';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Modal, Panel, useConfirm, useNotify, type Column } from '../ui';
import { aiApi, type Agent, type AgentBody, type AgentPatch, type Provider, type Tool } from './api';
import { CheckboxGroup, Field, focusFirstProblem, focusHeading, NS, useProblemText, useRegistryFailure } from './shared';
import { checkAgent, LIMITS, MODEL_CLASSES, NAME_MAX, type AgentForm, type Problems, type AgentField } from './validate';

const HEADING = 'ai-agents-heading';

export function AgentsView() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const confirm = useConfirm();
  const registryFailure = useRegistryFailure();
  const agents = useStaffResource<Agent[]>('/ai/agents');
  const tools = useStaffResource<Tool[]>('/ai/tools');
  const providers = useStaffResource<Provider[]>('/ai/context-providers');
  const [editing, setEditing] = useState<Agent | 'new' | null>(null);
  const [refusal, setRefusal] = useState<{ name: string; failure: Failure } | null>(null);

  const remove = async (a: Agent) => {
    setRefusal(null);
    const ok = await confirm({ title: t('agents.deleteTitle', { name: a.name }), body: <p>{t('agents.deleteBody', { name: a.name })}</p>, confirmLabel: t('agents.delete'), danger: true });
    if (!ok) return;
    try {
      await aiApi.deleteAgent(a.name);
      notify(t('agents.deleted', { name: a.name }));
      await agents.reload();
      focusHeading(HEADING);
    } catch (err) {
      setRefusal({ name: a.name, failure: failureOf(err) });
    }
  };

  const columns: Column<Agent>[] = [
    {
      header: t('agents.name'),
      rowHeader: true,
      width: 20,
      cell: (a) => (
        <>
          <code className="ai-name">{a.name}</code>
          {a.builtin ? (
            <>
              <br />
              <span className="ai-tag">{t('builtin')}</span>
            </>
          ) : null}
        </>
      ),
    },
    { header: t('agents.description'), width: 26, cell: (a) => a.description || <span className="muted">—</span> },
    {
      header: t('agents.model'),
      width: 16,
      cell: (a) => (
        <>
          <code>{a.model}</code>
          <br />
          <span className="muted small">{t('agents.temperatureValue', { value: a.temperature })}</span>
        </>
      ),
    },
    {
      header: t('agents.uses'),
      width: 20,
      cell: (a) =>
        a.tools.length + a.contextProviders.length === 0 ? (
          <span className="muted">{t('agents.usesNothing')}</span>
        ) : (
          <ul className="ai-inline-list">
            {a.tools.map((n) => (
              <li key={`t-${n}`}>
                <span className="visually-hidden">{t('agents.tool')} </span>
                <code>{n}</code>
              </li>
            ))}
            {a.contextProviders.map((n) => (
              <li key={`p-${n}`} className="provider">
                <span className="ai-kind">{t('agents.provider')}</span> <code>{n}</code>
              </li>
            ))}
          </ul>
        ),
    },
    {
      header: t('actions'),
      width: 18,
      className: 'actions',
      cell: (a) => (
        <div className="staff-actions">
          <Link className="ai-action-link" to={`/staff/ai/playground?agent=${encodeURIComponent(a.name)}`}>
            {t('agents.try')}
            <span className="visually-hidden"> {a.name}</span>
          </Link>
          {a.builtin ? null : (
            <>
              <button type="button" className="secondary" onClick={() => setEditing(a)}>
                {t('edit')}
                <span className="visually-hidden"> {a.name}</span>
              </button>
              <button type="button" className="secondary danger-outline" onClick={() => void remove(a)}>
                {t('agents.delete')}
                <span className="visually-hidden"> {a.name}</span>
              </button>
            </>
          )}
        </div>
      ),
    },
  ];

  return (
    <Panel
      id={HEADING}
      title={t('agents.title')}
      actions={
        <button type="button" onClick={() => setEditing('new')} disabled={!agents.data}>
          {t('agents.register')}
        </button>
      }
    >
      <p className="muted ai-help">{t('agents.lead')}</p>
      {refusal ? (
        <div role="alert" className="staff-refusal">
          <p className="error">{registryFailure(refusal.failure)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {agents.failure ? (
        <ErrorState failure={agents.failure} onRetry={() => void agents.reload()} />
      ) : !agents.data ? (
        <LoadingState />
      ) : (
        <DataTable fixed caption={t('agents.caption')} columns={columns} rows={agents.data} rowKey={(a) => a.name} rowAttributes={(a) => ({ 'data-agent': a.name })} />
      )}
      <AgentDialog
        editing={editing}
        agents={agents.data ?? []}
        tools={tools.data ?? []}
        providers={providers.data ?? []}
        onClose={() => setEditing(null)}
        onSaved={async (name, created) => {
          setEditing(null);
          notify(created ? t('agents.registered', { name }) : t('agents.updated', { name }));
          await agents.reload();
        }}
      />
    </Panel>
  );
}

const formOf = (a: Agent | null): AgentForm => ({
  name: a?.name ?? '',
  description: a?.description ?? '',
  systemPrompt: a?.systemPrompt ?? '',
  model: a?.model ?? 'mini',
  temperature: String(a?.temperature ?? 0.7),
  tools: a?.tools ?? [],
  contextProviders: a?.contextProviders ?? [],
});

function AgentDialog({
  editing,
  agents,
  tools,
  providers,
  onClose,
  onSaved,
}: {
  editing: Agent | 'new' | null;
  agents: Agent[];
  tools: Tool[];
  providers: Provider[];
  onClose: () => void;
  onSaved: (name: string, created: boolean) => Promise<void>;
}) {
  const { t } = useTranslation(NS);
  const title = editing === 'new' ? t('agents.registerTitle') : editing ? t('agents.editTitle', { name: editing.name }) : '';
  return (
    <Modal open={editing !== null} title={title} onClose={onClose} className="ai-dialog">
      {editing !== null ? <AgentFormBody agent={editing === 'new' ? null : editing} agents={agents} tools={tools} providers={providers} onCancel={onClose} onSaved={onSaved} /> : null}
    </Modal>
  );
}

function AgentFormBody({
  agent,
  agents,
  tools,
  providers,
  onCancel,
  onSaved,
}: {
  agent: Agent | null;
  agents: Agent[];
  tools: Tool[];
  providers: Provider[];
  onCancel: () => void;
  onSaved: (name: string, created: boolean) => Promise<void>;
}) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const problemText = useProblemText();
  const registryFailure = useRegistryFailure();
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const initial = useMemo(() => formOf(agent), [agent]);
  const [f, setF] = useState<AgentForm>(initial);
  const [problems, setProblems] = useState<Problems<AgentField>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const isNew = agent === null;
  const models = MODEL_CLASSES.includes(f.model as (typeof MODEL_CLASSES)[number]) ? [...MODEL_CLASSES] : [...MODEL_CLASSES, f.model];

  const set = <K extends AgentField>(k: K, v: AgentForm[K]) => {
    setF((prev) => ({ ...prev, [k]: v }));
    if (problems[k]) setProblems((prev) => ({ ...prev, [k]: undefined }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    const found = checkAgent(f, { isNew, taken: agents.map((a) => a.name) });
    setProblems(found);
    if (Object.values(found).some(Boolean)) {
      requestAnimationFrame(() => focusFirstProblem(form.current));
      return;
    }
    const body: AgentBody = {
      name: f.name,
      description: f.description,
      systemPrompt: f.systemPrompt,
      model: f.model,
      temperature: Number(f.temperature),
      tools: f.tools,
      contextProviders: f.contextProviders,
    };
    setBusy(true);
    try {
      if (isNew) {
        await aiApi.registerAgent(body);
        await onSaved(body.name, true);
        return;
      }
      const patch: AgentPatch = {};
      if (body.description !== initial.description) patch.description = body.description;
      if (body.systemPrompt !== initial.systemPrompt) patch.systemPrompt = body.systemPrompt;
      if (body.model !== initial.model) patch.model = body.model;
      if (body.temperature !== Number(initial.temperature)) patch.temperature = body.temperature;
      if (body.tools.join() !== initial.tools.join()) patch.tools = body.tools;
      if (body.contextProviders.join() !== initial.contextProviders.join()) patch.contextProviders = body.contextProviders;
      if (Object.keys(patch).length === 0) {
        notify(t('unchanged'), 'info');
        onCancel();
        return;
      }
      await aiApi.updateAgent(agent.name, patch);
      await onSaved(agent.name, false);
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} className="ai-form" onSubmit={(e) => void submit(e)} noValidate>
      {isNew ? (
        <Field id={`${id}-name`} label={t('agents.name')} help={t('agents.nameHelp', { max: NAME_MAX })} error={problemText(problems.name)}>
          {(d, invalid) => (
            <input id={`${id}-name`} type="text" autoComplete="off" spellCheck={false} required maxLength={NAME_MAX} value={f.name} onChange={(e) => set('name', e.target.value.trim())} aria-describedby={d} aria-invalid={invalid || undefined} />
          )}
        </Field>
      ) : null}
      <Field id={`${id}-description`} label={t('agents.description')} help={t('optionalMax', { max: LIMITS.agentDescription })} error={problemText(problems.description)}>
        {(d, invalid) => <input id={`${id}-description`} type="text" value={f.description} onChange={(e) => set('description', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      <Field id={`${id}-prompt`} label={t('agents.systemPrompt')} help={t('agents.systemPromptHelp', { max: new Intl.NumberFormat(i18n.language === 'pt' ? 'pt-BR' : 'en-GB').format(LIMITS.systemPrompt) })} error={problemText(problems.systemPrompt)}>
        {(d, invalid) => <textarea id={`${id}-prompt`} rows={5} required value={f.systemPrompt} onChange={(e) => set('systemPrompt', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      <div className="ai-form-row">
        <Field id={`${id}-model`} label={t('agents.model')} help={t('agents.modelHelp')} error={problemText(problems.model)}>
          {(d, invalid) => (
            <select id={`${id}-model`} value={f.model} onChange={(e) => set('model', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined}>
              {models.map((m) => (
                <option key={m} value={m}>
                  {t(`models.${m}`, { defaultValue: m })}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field id={`${id}-temperature`} label={t('agents.temperature')} help={t('agents.temperatureHelp')} error={problemText(problems.temperature)}>
          {(d, invalid) => (
            <input id={`${id}-temperature`} type="number" inputMode="decimal" min={0} max={2} step={0.1} required value={f.temperature} onChange={(e) => set('temperature', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />
          )}
        </Field>
      </div>
      <CheckboxGroup
        id={`${id}-tools`}
        legend={t('agents.tools')}
        help={t('agents.toolsHelp', { max: LIMITS.agentTools })}
        options={tools.map((x) => ({ value: x.name, label: x.name, description: x.kind === 'builtin' ? t('builtin') : t('tools.http') }))}
        value={f.tools}
        onChange={(v) => set('tools', v)}
        error={problemText(problems.tools)}
      />
      {providers.length ? (
        <CheckboxGroup
          id={`${id}-providers`}
          legend={t('agents.providers')}
          help={t('agents.providersHelp', { max: LIMITS.agentProviders })}
          options={providers.map((p) => ({ value: p.name, label: p.name, ...(p.description ? { description: p.description } : {}) }))}
          value={f.contextProviders}
          onChange={(v) => set('contextProviders', v)}
          error={problemText(problems.contextProviders)}
        />
      ) : (
        <p className="muted ai-help">{t('agents.noProviders')}</p>
      )}
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
          {busy ? t('saving') : isNew ? t('agents.registerSubmit') : t('save')}
        </button>
      </div>
    </form>
  );
}
