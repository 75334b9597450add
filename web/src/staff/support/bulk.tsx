/**
 * Bulk actions on the queue: on a selection of tickets (ids) or on a whole view (its filters, the
 * tickets it selects when the operation starts). Each action is asked for in a dialog that says how
 * many tickets it acts on; the operation then runs as a workflow, and its progress (processed of
 * total, succeeded, failed, the errors) is polled every second into a panel with Cancel, announced
 * politely at its start, every quarter and at its end. The running operation is held above the
 * section's routes, so it goes on (and is shown again) after a visit to a ticket.
 */
import { createContext, useCallback, useContext, useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useStaff } from '../access';
import { failureOf, type Failure } from '../api';
import { Address, Modal, useFailureText, useNotify } from '../ui';
import { supportApi, type BulkKind, type BulkOperation, type BulkSelection, type PatchableStatus, type Tag } from './api';
import { NS } from './parts';

/** How often a running operation's progress is read. */
const POLL_MS = 1_000;

export interface BulkRun {
  operationId: string;
  /** What it does, in words ("Change status to Resolved"), in the language shown now (it may change while the operation runs). */
  label: Describe;
  total: number;
  op: BulkOperation | null;
  /** The last progress read failed (it is tried again). */
  failure: Failure | null;
}

/** An operation's description, said in the page's language at the time it is shown. */
export type Describe = (t: TFunction) => string;

interface BulkState {
  run: BulkRun | null;
  /** Starts an operation; a refusal (400, 404, 503…) is answered as a failure, nothing started. */
  start: (kind: BulkKind, selection: BulkSelection, params: Record<string, unknown>, label: Describe) => Promise<Failure | null>;
  cancel: () => Promise<void>;
  dismiss: () => void;
  /** Goes up each time an operation ends: the queue reads its page and counts again. */
  finished: number;
}

const BulkContext = createContext<BulkState | null>(null);

export function useBulk(): BulkState {
  const b = useContext(BulkContext);
  if (!b) throw new Error('useBulk outside BulkProvider');
  return b;
}

const done = (op: BulkOperation | null) => op !== null && op.state !== 'running';

export function BulkProvider({ children }: { children: ReactNode }) {
  const [run, setRun] = useState<BulkRun | null>(null);
  const [finished, setFinished] = useState(0);

  const start = useCallback<BulkState['start']>(async (kind, selection, params, label) => {
    try {
      const accepted = await supportApi.startBulk(kind, selection, params);
      setRun({ operationId: accepted.operationId, label, total: accepted.total, op: null, failure: null });
      return null;
    } catch (err) {
      return failureOf(err);
    }
  }, []);

  const operationId = run?.operationId;
  const running = run !== null && !done(run.op);
  useEffect(() => {
    if (!operationId || !running) return;
    let stop = false;
    let timer: number | undefined;
    const poll = async () => {
      try {
        const op = await supportApi.bulk(operationId);
        if (stop) return;
        setRun((r) => (r && r.operationId === operationId ? { ...r, op, failure: null } : r));
        if (op.state !== 'running') {
          setFinished((n) => n + 1);
          return;
        }
      } catch (err) {
        if (stop) return;
        setRun((r) => (r && r.operationId === operationId ? { ...r, failure: failureOf(err) } : r));
      }
      timer = window.setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      stop = true;
      window.clearTimeout(timer);
    };
  }, [operationId, running]);

  const cancel = useCallback(async () => {
    if (!operationId) return;
    try {
      await supportApi.cancelBulk(operationId);
    } catch (err) {
      // 409: it ended meanwhile; the next read tells.
      setRun((r) => (r ? { ...r, failure: failureOf(err) } : r));
    }
  }, [operationId]);

  const dismiss = useCallback(() => setRun(null), []);
  const value = useMemo(() => ({ run, start, cancel, dismiss, finished }), [run, start, cancel, dismiss, finished]);
  return <BulkContext.Provider value={value}>{children}</BulkContext.Provider>;
}

/** The operation whose panel took the focus (once: not again when the queue is shown again). */
let focusedRun: string | undefined;

/** The progress of the running (or last) operation: a panel with a progress bar, counts, errors and Cancel. */
export function BulkProgress() {
  const { t } = useTranslation(NS);
  const failureText = useFailureText();
  const { run, cancel, dismiss } = useBulk();
  const headingId = useId();
  const [cancelling, setCancelling] = useState(false);
  const [said, setSaid] = useState('');
  const lastQuarter = useRef(-1);
  const heading = useRef<HTMLHeadingElement>(null);

  const op = run?.op ?? null;
  const total = op?.total ?? run?.total ?? 0;
  const processed = op?.processed ?? 0;
  const state = op?.state ?? 'running';

  // Announced politely: the start, each quarter, and the end (not every second).
  useEffect(() => {
    if (!run) {
      lastQuarter.current = -1;
      return;
    }
    if (state !== 'running') {
      setSaid(t(`bulk.ended.${state}`, { label: run.label(t), succeeded: op?.succeeded ?? 0, failed: op?.failed ?? 0, total }));
      return;
    }
    const quarter = total ? Math.floor((processed / total) * 4) : 0;
    if (quarter !== lastQuarter.current) {
      lastQuarter.current = quarter;
      setSaid(quarter === 0 ? t('bulk.started', { label: run.label(t), total }) : t('bulk.progress', { processed, total }));
    }
  }, [run, state, processed, total, op?.succeeded, op?.failed, t]);

  useEffect(() => {
    if (state !== 'running') setCancelling(false);
  }, [state]);

  // A new operation: the focus goes to its panel (the dialog that started it has closed, and the
  // selection's toolbar with it), after the dialog has put it back where it was.
  const runId = run?.operationId;
  useEffect(() => {
    if (!runId || focusedRun === runId) return;
    focusedRun = runId;
    const timer = window.setTimeout(() => heading.current?.focus(), 0);
    return () => window.clearTimeout(timer);
  }, [runId]);

  if (!run) return <div role="status" className="visually-hidden" />;
  const percent = total ? Math.round((processed / total) * 100) : 0;
  return (
    <section className={`card sd-bulk-progress sd-bulk-${state}`} aria-labelledby={headingId} data-testid="bulk-progress">
      <div className="staff-panel-head">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          {t('bulk.panelTitle', { label: run.label(t) })}
        </h2>
        <span className={`sd-bulk-state ${state}`}>{t(`bulk.state.${state}`)}</span>
      </div>
      <progress max={total || 1} value={processed} aria-labelledby={headingId} aria-valuetext={t('bulk.progress', { processed, total })} />
      <p className="sd-bulk-counts">
        <span>{t('bulk.processed', { processed, total, percent })}</span>
        <span className="ok">{t('bulk.succeeded', { count: op?.succeeded ?? 0 })}</span>
        <span className={op?.failed ? 'error' : 'muted'}>{t('bulk.failed', { count: op?.failed ?? 0 })}</span>
      </p>
      {op?.error ? <p className="error">{op.error}</p> : null}
      {run.failure ? <p className="error">{t('bulk.readFailed', { reason: failureText(run.failure) })}</p> : null}
      {op && op.errors.length > 0 ? (
        <details className="sd-bulk-errors" open={op.errors.length <= 5}>
          <summary>{t('bulk.errors', { count: op.failed })}</summary>
          <ul>
            {op.errors.map((e) => (
              <li key={e.ticketId}>
                <strong>#{e.ticketId}</strong> {e.error}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <div className="row">
        {state === 'running' ? (
          <button
            type="button"
            className="secondary danger-outline"
            disabled={cancelling}
            onClick={() => {
              setCancelling(true);
              void cancel();
            }}
          >
            {cancelling ? t('bulk.cancelling') : t('bulk.cancel')}
          </button>
        ) : (
          <button type="button" className="secondary" onClick={dismiss}>
            {t('bulk.dismiss')}
          </button>
        )}
      </div>
      <div role="status" aria-live="polite" className="visually-hidden">
        {said}
      </div>
    </section>
  );
}

/** The bulk actions offered for a selection, each in a dialog; `count` is how many tickets it acts on. */
export function BulkToolbar({
  count,
  selection,
  tags,
  onStarted,
  onClear,
}: {
  count: number;
  selection: () => BulkSelection;
  tags: readonly Tag[];
  onStarted: () => void;
  onClear: () => void;
}) {
  const { t } = useTranslation(NS);
  const [kind, setKind] = useState<BulkKind | null>(null);
  const { run } = useBulk();
  const busy = run !== null && (run.op === null || run.op.state === 'running');
  const actions: [BulkKind, string][] = [
    ['status', t('bulk.actions.status')],
    ['assign', t('bulk.actions.assign')],
    ['tags', t('bulk.actions.tags')],
    ['messages', t('bulk.actions.messages')],
    ['fast-response', t('bulk.actions.fastResponse')],
    ['delete', t('bulk.actions.delete')],
  ];
  return (
    <div className="sd-bulkbar" role="toolbar" aria-label={t('bulk.toolbar', { count })}>
      <p className="sd-bulkbar-count" aria-live="polite">
        <strong>{t('bulk.selected', { count })}</strong>
        <button type="button" className="link" onClick={onClear}>
          {t('bulk.clear')}
        </button>
      </p>
      <div className="sd-bulkbar-actions">
        {actions.map(([k, label]) => (
          <button key={k} type="button" className={k === 'delete' ? 'secondary danger-outline' : 'secondary'} disabled={busy} onClick={() => setKind(k)} aria-haspopup="dialog">
            {label}
          </button>
        ))}
      </div>
      {busy ? <p className="muted small sd-bulkbar-busy">{t('bulk.oneAtATime')}</p> : null}
      <BulkDialog
        kind={kind}
        count={count}
        tags={tags}
        selection={selection}
        onClose={() => setKind(null)}
        onStarted={() => {
          setKind(null);
          onStarted();
        }}
      />
    </div>
  );
}

function BulkDialog({
  kind,
  count,
  tags,
  selection,
  onClose,
  onStarted,
}: {
  kind: BulkKind | null;
  count: number;
  tags: readonly Tag[];
  selection: () => BulkSelection;
  onClose: () => void;
  onStarted: () => void;
}) {
  const { t } = useTranslation(NS);
  const titles: Record<BulkKind, string> = {
    status: t('bulk.dialog.statusTitle', { count }),
    assign: t('bulk.dialog.assignTitle', { count }),
    tags: t('bulk.dialog.tagsTitle', { count }),
    messages: t('bulk.dialog.messagesTitle', { count }),
    'fast-response': t('bulk.dialog.fastResponseTitle', { count }),
    delete: t('bulk.dialog.deleteTitle', { count }),
  };
  return (
    <Modal open={kind !== null} title={kind ? titles[kind] : ''} onClose={onClose} className="sd-bulk-dialog">
      {kind ? <BulkForm kind={kind} count={count} tags={tags} selection={selection} onClose={onClose} onStarted={onStarted} /> : null}
    </Modal>
  );
}

const BULK_STATUSES: PatchableStatus[] = ['open', 'in_progress', 'resolved', 'closed'];

function BulkForm({
  kind,
  count,
  tags,
  selection,
  onClose,
  onStarted,
}: {
  kind: BulkKind;
  count: number;
  tags: readonly Tag[];
  selection: () => BulkSelection;
  onClose: () => void;
  onStarted: () => void;
}) {
  const { t, i18n } = useTranslation(NS);
  const { t: shell } = useTranslation('staff');
  const { me, can } = useStaff();
  const manager = can('support.manager');
  const failureText = useFailureText();
  const notify = useNotify();
  const { start } = useBulk();
  const [status, setStatus] = useState<PatchableStatus>('resolved');
  const [assignTo, setAssignTo] = useState<'me' | 'none' | 'other'>('me');
  const [other, setOther] = useState('');
  const [tagId, setTagId] = useState<number | ''>(tags[0]?.id ?? '');
  const [tagAction, setTagAction] = useState<'add' | 'remove'>('add');
  const [text, setText] = useState('');
  const [send, setSend] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    let params: Record<string, unknown> = {};
    let label: Describe = (tr) => tr('bulk.labels.delete');
    switch (kind) {
      case 'status':
        params = { status };
        label = (tr) => tr('bulk.labels.status', { status: tr(`status.${status}`) });
        break;
      case 'assign': {
        const assignee = assignTo === 'me' ? me.email : assignTo === 'none' ? null : other.trim();
        if (assignee === '') {
          setProblem(t('bulk.dialog.assigneeMissing'));
          return;
        }
        params = { assignee };
        label = (tr) => (assignee === null ? tr('bulk.labels.unassign') : tr('bulk.labels.assign', { email: assignee }));
        break;
      }
      case 'tags': {
        const tag = tags.find((x) => x.id === tagId);
        if (!tag) {
          setProblem(t('bulk.dialog.tagMissing'));
          return;
        }
        params = tagAction === 'add' ? { add: [tag.id] } : { remove: [tag.id] };
        label = (tr) => tr(tagAction === 'add' ? 'bulk.labels.tagAdd' : 'bulk.labels.tagRemove', { tag: tag.name });
        break;
      }
      case 'messages':
        if (!text.trim()) {
          setProblem(t('bulk.dialog.messageMissing'));
          return;
        }
        params = { conteudo: text.trim() };
        label = (tr) => tr('bulk.labels.messages');
        break;
      case 'fast-response':
        params = { send };
        label = (tr) => tr(send ? 'bulk.labels.fastResponseSend' : 'bulk.labels.fastResponse');
        break;
      case 'delete':
        break;
    }
    setBusy(true);
    const failure = await start(kind, selection(), params, label);
    setBusy(false);
    if (failure) {
      setProblem(failure.kind === 'unavailable' && kind === 'fast-response' ? t('reply.aiUnavailable') : failureText(failure));
      return;
    }
    // Drawn in the language of the moment it is shown (`t` keeps the language it was made in).
    notify(() => {
      const now = i18n.getFixedT(null, NS);
      return now('bulk.startedNotice', { label: label(now), count });
    }, 'info');
    onStarted();
  };

  const submitLabel: Record<BulkKind, string> = {
    status: t('bulk.dialog.apply', { count }),
    assign: t('bulk.dialog.apply', { count }),
    tags: t('bulk.dialog.apply', { count }),
    messages: t('bulk.dialog.send', { count }),
    'fast-response': t('bulk.dialog.draft', { count }),
    delete: t('bulk.dialog.delete', { count }),
  };

  return (
    <form className="stack" onSubmit={(e) => void submit(e)} noValidate>
      {kind === 'status' ? (
        <fieldset className="sd-choices">
          <legend>{t('bulk.dialog.newStatus')}</legend>
          {BULK_STATUSES.map((s) => (
            <label key={s} className="check">
              <input type="radio" name={`${ids}-status`} value={s} checked={status === s} onChange={() => setStatus(s)} />
              {t(`status.${s}`)}
            </label>
          ))}
        </fieldset>
      ) : null}
      {kind === 'assign' ? (
        <fieldset className="sd-choices">
          <legend>{t('bulk.dialog.assignTo')}</legend>
          <label className="check">
            <input type="radio" name={`${ids}-assign`} checked={assignTo === 'me'} onChange={() => setAssignTo('me')} />
            {t('bulk.dialog.toMe')} (<Address email={me.email} />)
          </label>
          <label className="check">
            <input type="radio" name={`${ids}-assign`} checked={assignTo === 'none'} onChange={() => setAssignTo('none')} />
            {t('bulk.dialog.toNoOne')}
          </label>
          {manager ? (
            <>
              <label className="check">
                <input type="radio" name={`${ids}-assign`} checked={assignTo === 'other'} onChange={() => setAssignTo('other')} />
                {t('bulk.dialog.toOther')}
              </label>
              {assignTo === 'other' ? (
                <div className="staff-field">
                  <label htmlFor={`${ids}-other`}>{t('bulk.dialog.otherEmail')}</label>
                  <input id={`${ids}-other`} type="email" autoComplete="off" value={other} onChange={(e) => setOther(e.target.value)} />
                </div>
              ) : null}
            </>
          ) : (
            <p className="muted small">{t('bulk.dialog.agentAssignHelp')}</p>
          )}
        </fieldset>
      ) : null}
      {kind === 'tags' ? (
        tags.length === 0 ? (
          <p>{t('tags.noneDefined')}</p>
        ) : (
          <>
            <div className="staff-field">
              <label htmlFor={`${ids}-tag`}>{t('bulk.dialog.tag')}</label>
              <select id={`${ids}-tag`} value={tagId} onChange={(e) => setTagId(Number(e.target.value))}>
                {tags.map((tag) => (
                  <option key={tag.id} value={tag.id}>
                    {tag.name}
                  </option>
                ))}
              </select>
            </div>
            <fieldset className="sd-choices">
              <legend>{t('bulk.dialog.tagAction')}</legend>
              <label className="check">
                <input type="radio" name={`${ids}-tagaction`} checked={tagAction === 'add'} onChange={() => setTagAction('add')} />
                {t('bulk.dialog.tagAdd')}
              </label>
              <label className="check">
                <input type="radio" name={`${ids}-tagaction`} checked={tagAction === 'remove'} onChange={() => setTagAction('remove')} />
                {t('bulk.dialog.tagRemove')}
              </label>
            </fieldset>
          </>
        )
      ) : null}
      {kind === 'messages' ? (
        <div className="staff-field">
          <label htmlFor={`${ids}-text`}>{t('bulk.dialog.message')}</label>
          <textarea id={`${ids}-text`} rows={6} value={text} onChange={(e) => setText(e.target.value)} aria-describedby={`${ids}-texthelp`} />
          <p id={`${ids}-texthelp`} className="muted small staff-help">
            {t('bulk.dialog.messageHelp')}
          </p>
        </div>
      ) : null}
      {kind === 'fast-response' ? (
        <>
          <p>{t('bulk.dialog.fastResponseLead')}</p>
          <label className="check">
            <input type="checkbox" checked={send} onChange={(e) => setSend(e.target.checked)} />
            {t('bulk.dialog.fastResponseSend')}
          </label>
        </>
      ) : null}
      {kind === 'delete' ? <p>{t('bulk.dialog.deleteLead', { count })}</p> : null}
      {problem ? (
        <p role="alert" className="error staff-dialog-error">
          {problem}
        </p>
      ) : null}
      <div className="staff-dialog-actions">
        <button type="button" className="secondary" onClick={onClose} data-autofocus={kind === 'delete' ? '' : undefined}>
          {shell('ui.cancel')}
        </button>
        <button type="submit" className={kind === 'delete' ? 'danger' : undefined} disabled={busy}>
          {busy ? t('bulk.dialog.starting') : submitLabel[kind]}
        </button>
      </div>
    </form>
  );
}
