/**
 * /staff/ai/tools: the tools agents may call (GET /ai/tools): the built-ins, and the registered HTTP
 * tools with their endpoint (shown with any credential in it masked, and never filled back into a
 * form: write-only), their timeout and their arguments' JSON Schema; registering and changing one
 * in a dialog (checked as the API checks it), deleting one (confirmed; 409 while an agent uses it).
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { failureOf, useStaffResource, type Failure } from '../api';
import { STAFF_NS } from '../i18n';
import { DataTable, ErrorState, LoadingState, Modal, Panel, useConfirm, useNotify, type Column } from '../ui';
import { aiApi, type Tool, type ToolPatch } from './api';
import { maskUrl } from './secrets';
import { Field, focusFirstProblem, focusHeading, Json, NS, useProblemText, useRegistryFailure } from './shared';
import { checkTool, LIMITS, parseParameters, type Problems, type ToolField, type ToolForm } from './validate';

const HEADING = 'ai-tools-heading';
type HttpTool = Extract<Tool, { kind: 'http' }>;

const EXAMPLE_SCHEMA = JSON.stringify({ type: 'object', properties: { ticker: { type: 'string', description: 'B3 ticker, e.g. PETR4' } }, required: ['ticker'] }, null, 2);

export function ToolsView() {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const confirm = useConfirm();
  const registryFailure = useRegistryFailure();
  const tools = useStaffResource<Tool[]>('/ai/tools');
  const [editing, setEditing] = useState<HttpTool | 'new' | null>(null);
  const [refusal, setRefusal] = useState<Failure | null>(null);

  const remove = async (x: HttpTool) => {
    setRefusal(null);
    const ok = await confirm({ title: t('tools.deleteTitle', { name: x.name }), body: <p>{t('tools.deleteBody', { name: x.name })}</p>, confirmLabel: t('tools.delete'), danger: true });
    if (!ok) return;
    try {
      await aiApi.deleteTool(x.name);
      notify(t('tools.deleted', { name: x.name }));
      await tools.reload();
      focusHeading(HEADING);
    } catch (err) {
      setRefusal(failureOf(err));
    }
  };

  const columns: Column<Tool>[] = [
    {
      header: t('tools.name'),
      rowHeader: true,
      width: 20,
      cell: (x) => (
        <>
          <code className="ai-name">{x.name}</code>
          <br />
          <span className="ai-tag">{x.kind === 'builtin' ? t('builtin') : t('tools.http')}</span>
        </>
      ),
    },
    { header: t('tools.description'), width: 30, cell: (x) => x.description },
    {
      header: t('tools.endpoint'),
      width: 24,
      cell: (x) =>
        x.kind === 'http' ? (
          <>
            <code className="ai-url">{maskUrl(x.endpoint)}</code>
            <br />
            <span className="muted small">{t('tools.timeoutValue', { ms: x.timeoutMs })}</span>
          </>
        ) : (
          <span className="muted">{t('tools.inPlatform')}</span>
        ),
    },
    {
      header: t('actions'),
      width: 26,
      className: 'actions',
      cell: (x) => (
        <div className="staff-actions ai-tool-actions">
          <details className="ai-schema">
            <summary>
              {t('tools.parameters')}
              <span className="visually-hidden"> {x.name}</span>
            </summary>
            <Json value={x.parameters} label={t('tools.parametersOf', { name: x.name })} />
          </details>
          {x.kind === 'http' ? (
            <>
              <button type="button" className="secondary" onClick={() => setEditing(x)}>
                {t('edit')}
                <span className="visually-hidden"> {x.name}</span>
              </button>
              <button type="button" className="secondary danger-outline" onClick={() => void remove(x)}>
                {t('tools.delete')}
                <span className="visually-hidden"> {x.name}</span>
              </button>
            </>
          ) : null}
        </div>
      ),
    },
  ];

  return (
    <Panel
      id={HEADING}
      title={t('tools.title')}
      actions={
        <button type="button" onClick={() => setEditing('new')} disabled={!tools.data}>
          {t('tools.register')}
        </button>
      }
    >
      <p className="muted ai-help">{t('tools.lead')}</p>
      {refusal ? (
        <div role="alert" className="staff-refusal">
          <p className="error">{registryFailure(refusal)}</p>
          <button type="button" className="link" onClick={() => setRefusal(null)}>
            {shell('ui.dismiss')}
          </button>
        </div>
      ) : null}
      {tools.failure ? (
        <ErrorState failure={tools.failure} onRetry={() => void tools.reload()} />
      ) : !tools.data ? (
        <LoadingState />
      ) : (
        <DataTable fixed caption={t('tools.caption')} columns={columns} rows={tools.data} rowKey={(x) => x.name} rowAttributes={(x) => ({ 'data-tool': x.name })} />
      )}
      <Modal open={editing !== null} title={editing === 'new' ? t('tools.registerTitle') : editing ? t('tools.editTitle', { name: editing.name }) : ''} onClose={() => setEditing(null)} className="ai-dialog">
        {editing !== null ? (
          <ToolFormBody
            tool={editing === 'new' ? null : editing}
            taken={(tools.data ?? []).map((x) => x.name)}
            onCancel={() => setEditing(null)}
            onSaved={async (name, created) => {
              setEditing(null);
              notify(created ? t('tools.registered', { name }) : t('tools.updated', { name }));
              await tools.reload();
            }}
          />
        ) : null}
      </Modal>
    </Panel>
  );
}

function ToolFormBody({ tool, taken, onCancel, onSaved }: { tool: HttpTool | null; taken: string[]; onCancel: () => void; onSaved: (name: string, created: boolean) => Promise<void> }) {
  const { t } = useTranslation(NS);
  const { t: shell } = useTranslation(STAFF_NS);
  const notify = useNotify();
  const problemText = useProblemText();
  const registryFailure = useRegistryFailure();
  const id = useId();
  const form = useRef<HTMLFormElement>(null);
  const isNew = tool === null;
  const initialParameters = tool ? JSON.stringify(tool.parameters, null, 2) : EXAMPLE_SCHEMA;
  // The endpoint is never filled back in: left empty, the stored one is kept.
  const [f, setF] = useState<ToolForm>({ name: '', description: tool?.description ?? '', parameters: initialParameters, endpoint: '', timeoutMs: String(tool?.timeoutMs ?? 10_000) });
  const [problems, setProblems] = useState<Problems<ToolField>>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);

  const set = <K extends ToolField>(k: K, v: ToolForm[K]) => {
    setF((prev) => ({ ...prev, [k]: v }));
    if (problems[k]) setProblems((prev) => ({ ...prev, [k]: undefined }));
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setFailure(null);
    const found = checkTool(f, { isNew, taken });
    setProblems(found);
    if (Object.values(found).some(Boolean)) {
      requestAnimationFrame(() => focusFirstProblem(form.current));
      return;
    }
    const parameters = (parseParameters(f.parameters) as { value: Record<string, unknown> }).value;
    setBusy(true);
    try {
      if (isNew) {
        await aiApi.registerTool({ name: f.name, description: f.description.trim(), parameters, endpoint: f.endpoint.trim(), timeoutMs: Number(f.timeoutMs) });
        await onSaved(f.name, true);
        return;
      }
      const patch: ToolPatch = {};
      if (f.description.trim() !== tool.description) patch.description = f.description.trim();
      if (JSON.stringify(parameters) !== JSON.stringify(tool.parameters)) patch.parameters = parameters;
      if (f.endpoint.trim()) patch.endpoint = f.endpoint.trim();
      if (Number(f.timeoutMs) !== tool.timeoutMs) patch.timeoutMs = Number(f.timeoutMs);
      if (Object.keys(patch).length === 0) {
        notify(t('unchanged'), 'info');
        onCancel();
        return;
      }
      await aiApi.updateTool(tool.name, patch);
      await onSaved(tool.name, false);
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} className="ai-form" onSubmit={(e) => void submit(e)} noValidate>
      {isNew ? (
        <Field id={`${id}-name`} label={t('tools.name')} help={t('tools.nameHelp')} error={problemText(problems.name)}>
          {(d, invalid) => <input id={`${id}-name`} type="text" autoComplete="off" spellCheck={false} required maxLength={64} value={f.name} onChange={(e) => set('name', e.target.value.trim())} aria-describedby={d} aria-invalid={invalid || undefined} />}
        </Field>
      ) : null}
      <Field id={`${id}-description`} label={t('tools.description')} help={t('tools.descriptionHelp', { max: LIMITS.toolDescription })} error={problemText(problems.description)}>
        {(d, invalid) => <textarea id={`${id}-description`} rows={2} required value={f.description} onChange={(e) => set('description', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      <Field id={`${id}-endpoint`} label={t('tools.endpoint')} help={isNew ? t('tools.endpointHelp') : t('secretKeep', { current: maskUrl(tool.endpoint) })} error={problemText(problems.endpoint)}>
        {(d, invalid) => <input id={`${id}-endpoint`} type="url" autoComplete="off" spellCheck={false} required={isNew} value={f.endpoint} onChange={(e) => set('endpoint', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      <Field id={`${id}-timeout`} label={t('tools.timeout')} help={t('tools.timeoutHelp', { min: LIMITS.timeoutMin, max: LIMITS.timeoutMax })} error={problemText(problems.timeoutMs)}>
        {(d, invalid) => <input id={`${id}-timeout`} type="number" inputMode="numeric" min={LIMITS.timeoutMin} max={LIMITS.timeoutMax} step={100} required value={f.timeoutMs} onChange={(e) => set('timeoutMs', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
      </Field>
      <Field id={`${id}-parameters`} label={t('tools.parameters')} help={t('tools.parametersHelp')} error={problemText(problems.parameters)}>
        {(d, invalid) => <textarea id={`${id}-parameters`} className="ai-code-input" rows={8} spellCheck={false} required value={f.parameters} onChange={(e) => set('parameters', e.target.value)} aria-describedby={d} aria-invalid={invalid || undefined} />}
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
          {busy ? t('saving') : isNew ? t('tools.registerSubmit') : t('save')}
        </button>
      </div>
    </form>
  );
}
