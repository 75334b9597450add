/**
 * /staff/support/:id: a ticket. At the top, who else is on it ("ana@… is replying"); the thread,
 * the requester's messages, the staff's replies and internal notes told apart (in words as well as
 * colour); the reply box (./ReplyBox.tsx); beside it the status, the assignee, tags, attachments
 * and the requester's other tickets. Live: the ticket's own stream (?ticket=<id>) brings new
 * messages and changes in without a reload (announced politely), and its presence; the page says
 * every ~10 s that the member is viewing, or replying while the reply box has text or focus.
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { useSession } from '../../session';
import { useStaff } from '../access';
import { failureOf, type Failure } from '../api';
import { formatDateTime } from '../i18n';
import { Address, EmptyState, ErrorState, LoadingState, Modal, PageHeader, Panel, useConfirm, useFailureText, useNotify } from '../ui';
import { attachmentUrl, originalMailUrl, supportApi, uploadAttachment, type AttachmentSummary, type Message, type PatchableStatus, type PresencePerson, type Tag, type Ticket, type TicketDetail, type TicketStatus } from './api';
import { useLiveEvents, usePresence } from './live';
import { LiveBadge } from './LiveBadge';
import { formatSize, lastMessageId, nextStatuses, NS, PresenceList, StatusBadge, TagChip, When } from './parts';
import { ReplyBox } from './ReplyBox';
import { ShortcutsButton, useShortcuts } from './shortcuts';

export default function TicketPage({ ticketId }: { ticketId: number }) {
  const { t, i18n } = useTranslation(NS);
  const { me } = useStaff();
  const { refresh } = useSession();
  const notify = useNotify();
  const failureText = useFailureText();
  const navigate = useNavigate();
  const location = useLocation();
  const from = (location.state as { from?: string } | null)?.from ?? '';
  const wantsReply = (location.state as { reply?: boolean } | null)?.reply === true;

  const [detail, setDetail] = useState<TicketDetail | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const detailRef = useRef<TicketDetail | null>(null);
  detailRef.current = detail;
  /** Messages that came in while the page was open, from someone else (marked "new"). */
  const [fresh, setFresh] = useState<Set<number>>(() => new Set());
  const [said, setSaid] = useState('');
  const latest = useRef(0);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    try {
      const d = await supportApi.detail(ticketId);
      if (mine !== latest.current) return;
      const before = detailRef.current;
      if (before) {
        const known = new Set(before.mensagens.map((m) => m.id));
        const arrived = d.mensagens.filter((m) => m.id !== null && !known.has(m.id) && m.remetente.toLowerCase() !== me.email.toLowerCase());
        if (arrived.length) {
          setFresh((s) => new Set([...s, ...arrived.map((m) => m.id!)]));
          const last = arrived[arrived.length - 1]!;
          setSaid(t(`thread.arrived.${last.origem}`, { name: last.remetente, count: arrived.length, text: last.conteudo.slice(0, 140) }));
        }
      }
      setDetail(d);
      setFailure(null);
    } catch (err) {
      if (mine !== latest.current) return;
      const f = failureOf(err);
      setFailure(f);
      if (f.kind === 'signedOut') await refresh();
    }
  }, [ticketId, me.email, refresh, t]);
  useEffect(() => {
    void load();
  }, [load]);

  // ---- Live: the ticket's stream, and presence ----
  const [people, setPeople] = useState<PresencePerson[]>([]);
  const reloadTimer = useRef<number | undefined>(undefined);
  const soon = useCallback(() => {
    window.clearTimeout(reloadTimer.current);
    reloadTimer.current = window.setTimeout(() => void load(), 200);
  }, [load]);
  useEffect(() => () => window.clearTimeout(reloadTimer.current), []);
  const live = useLiveEvents(ticketId, {
    ticket: (e) => {
      const d = detailRef.current;
      if (e.id === ticketId && (!d || e.updatedAt !== d.updatedAt || e.status !== d.status)) soon();
    },
    presence: (p) => {
      if (p.ticketId === ticketId) setPeople(p.people);
    },
    reset: () => void load(),
  });

  // The reply being written is kept for this tab (sessionStorage), so a reload or a visit to the
  // queue does not lose it; sending or emptying the box forgets it.
  const draftKey = `supportDraft:${ticketId}`;
  const [draft, setDraftState] = useState(() => {
    try {
      return sessionStorage.getItem(draftKey) ?? '';
    } catch {
      return '';
    }
  });
  const setDraft = useCallback(
    (text: string) => {
      setDraftState(text);
      try {
        if (text.trim()) sessionStorage.setItem(draftKey, text);
        else sessionStorage.removeItem(draftKey);
      } catch {
        // private mode: kept in the page only
      }
    },
    [draftKey],
  );
  const [editorFocused, setEditorFocused] = useState(false);
  const replying = draft.trim() !== '' || editorFocused;
  usePresence(ticketId, replying ? 'replying' : 'viewing', (p) => setPeople(p.people), detail !== null);

  /**
   * The newest message the member has seen, for the reply's traffic cop: it follows the thread while
   * the reply box is empty, and stays where it was once the member starts writing, so that a
   * message arriving meanwhile (shown, marked new) makes sending ask first.
   */
  const seen = useRef(0);
  const seenFirst = useRef(false);
  const typing = draft.trim() !== '';
  useEffect(() => {
    if (!detail) return;
    // The whole thread is seen when the page opens (a draft kept from before included).
    if (!typing || !seenFirst.current) seen.current = lastMessageId(detail.mensagens);
    seenFirst.current = true;
  }, [detail, typing]);

  // ---- Focus: the reply box when opened to reply (r in the queue) ----
  const editor = useRef<HTMLTextAreaElement>(null);
  const focusedForReply = useRef(false);
  useEffect(() => {
    if (!wantsReply || !detail || focusedForReply.current) return;
    focusedForReply.current = true;
    window.setTimeout(() => editor.current?.focus(), 0);
  }, [wantsReply, detail]);

  // ---- Actions ----
  const patch = (changes: Partial<Ticket>) => setDetail((d) => d && { ...d, ...changes });
  const setStatus = async (status: PatchableStatus) => {
    try {
      const updated = await supportApi.setStatus(ticketId, status);
      patch({ status: updated.status, updatedAt: updated.updatedAt });
      notify(t('status.changed', { id: ticketId, status: t(`status.${updated.status}`) }));
    } catch (err) {
      notify(t('actions.failed', { id: ticketId, reason: failureText(failureOf(err)) }), 'error');
    }
  };
  const [assignProblem, setAssignProblem] = useState<string | null>(null);
  const assign = async (to: string | null) => {
    setAssignProblem(null);
    try {
      const updated = await supportApi.assign(ticketId, to);
      patch({ assignee: updated.assignee, updatedAt: updated.updatedAt });
      notify(updated.assignee === null ? t('assign.unassigned', { id: ticketId }) : updated.assignee.toLowerCase() === me.email.toLowerCase() ? t('actions.taken', { id: ticketId }) : t('assign.assigned', { id: ticketId, email: updated.assignee }));
      return true;
    } catch (err) {
      const f = failureOf(err);
      const holder = typeof f.details.assignee === 'string' ? f.details.assignee : null;
      setAssignProblem(holder ? t('assign.someoneElse', { id: ticketId, email: holder }) : failureText(f));
      if (holder) patch({ assignee: holder });
      return false;
    }
  };
  const backToQueue = () => void navigate({ pathname: '/staff/support', search: from }, { state: { focusTicket: ticketId } });

  useShortcuts({
    r: () => editor.current?.focus(),
    e: () => {
      if (!detail) return;
      if (detail.status === 'resolved') notify(t('actions.alreadyResolved', { id: ticketId }), 'info');
      else void setStatus('resolved');
    },
    a: () => {
      if (!detail) return;
      if (detail.assignee?.toLowerCase() === me.email.toLowerCase()) notify(t('actions.alreadyYours', { id: ticketId }), 'info');
      else void assign(me.email);
    },
    u: backToQueue,
  });

  const back = (
    <Link className="sd-back" to={{ pathname: '/staff/support', search: from }} state={{ focusTicket: ticketId }}>
      <span aria-hidden="true">← </span>
      {t('ticket.back')}
    </Link>
  );
  if (failure && !detail) {
    return (
      <>
        {back}
        <PageHeader title={t('ticket.title', { id: ticketId })} />
        <ErrorState failure={failure} onRetry={() => void load()} />
      </>
    );
  }
  if (!detail) {
    return (
      <>
        {back}
        <LoadingState />
      </>
    );
  }

  const deleted = detail.status === 'deleted';
  return (
    <>
      {back}
      <PageHeader
        title={t('ticket.heading', { id: detail.id, subject: detail.issue })}
        lead={
          <>
            {detail.main}
            {detail.newsletter ? ` · ${detail.newsletter}` : ''} · {t('ticket.openedBy')} <Address email={detail.email} /> · <When iso={detail.createdAt} />
          </>
        }
        actions={
          <>
            <LiveBadge status={live} />
            <ShortcutsButton />
          </>
        }
      />
      <div className="sd-presence-bar" role="status" aria-live="polite" data-testid="presence">
        {people.some((p) => p.email.toLowerCase() !== me.email.toLowerCase()) ? <PresenceList people={people} me={me.email} /> : <span className="muted">{t('presence.alone')}</span>}
      </div>
      {deleted ? (
        <div className="notice sd-deleted" role="note">
          <p>{t('ticket.deleted', { date: formatDateTime(detail.deletedAt, i18n.language) })}</p>
        </div>
      ) : null}

      <div className="sd-ticket">
        <div className="sd-ticket-main">
          <section className="card sd-thread-panel" aria-labelledby="sd-thread-title">
            <div className="staff-panel-head">
              <h2 id="sd-thread-title">{t('thread.title')}</h2>
              <span className="muted small">{t('thread.count', { count: detail.mensagens.length })}</span>
            </div>
            <Thread ticketId={detail.id} messages={detail.mensagens} fresh={fresh} />
            <div role="status" aria-live="polite" className="visually-hidden" data-testid="thread-news">
              {said}
            </div>
          </section>
          {deleted ? null : (
            <ReplyBox
              ticket={detail}
              draft={draft}
              setDraft={setDraft}
              editor={editor}
              seen={seen}
              onFocusChange={setEditorFocused}
              onSent={(m) => {
                // The thread has it at once; the reload brings the status an answer changes.
                setDetail((d) => d && { ...d, mensagens: [...d.mensagens, m] });
                seen.current = Math.max(seen.current, m.id ?? 0);
                void load();
              }}
            />
          )}
        </div>
        <div className="sd-ticket-side">
          <StatusPanel ticket={detail} onStatus={(s) => void setStatus(s)} onChanged={() => void load()} />
          <AssigneePanel ticket={detail} problem={assignProblem} onAssign={assign} />
          <TagsPanel ticket={detail} onChanged={(change) => setDetail((d) => d && { ...d, tags: change(d.tags) })} />
          <AttachmentsPanel ticket={detail} onUploaded={(a) => setDetail((d) => d && { ...d, anexos: [...d.anexos, a] })} />
          <OtherTickets ticket={detail} />
        </div>
      </div>
    </>
  );
}

/** The conversation, oldest first: each message an article named by who wrote it and what it is. */
function Thread({ ticketId, messages, fresh }: { ticketId: number; messages: readonly Message[]; fresh: ReadonlySet<number> }) {
  const { t } = useTranslation(NS);
  const ids = useId();
  return (
    <ol className="sd-thread">
      {messages.map((m, i) => {
        const isNew = m.id !== null && fresh.has(m.id);
        const heading = `${ids}-${i}`;
        return (
          <li key={m.id ?? 'description'} className={`sd-msg sd-msg-${m.origem}${isNew ? ' is-new' : ''}`} data-origin={m.origem} data-message={m.id ?? 0}>
            <article aria-labelledby={heading}>
              <div className="sd-msg-head">
                <h3 id={heading} className="sd-msg-who">
                  <span className="sd-msg-kind">{m.id === null ? t('thread.opened') : t(`thread.kind.${m.origem}`)}</span>
                  {m.canal === 'email' ? <span className="sd-msg-channel">{` ${t('thread.channel.email')}`}</span> : null}
                  <span className="visually-hidden">{', '}</span>
                  <span className="sd-msg-name">
                    <Address email={m.remetente} />
                  </span>
                </h3>
                <span className="sd-msg-when">
                  <When iso={m.createdAt} />
                </span>
                {isNew ? <span className="sd-new">{t('thread.new')}</span> : null}
              </div>
              {m.dmarcFalhou ? (
                <p className="sd-msg-warning" data-dmarc="fail">
                  {t('thread.dmarcFailed')}
                </p>
              ) : null}
              <div className="sd-msg-body">{m.conteudo}</div>
              {m.arquivosRecusados?.length ? (
                <ul className="sd-msg-refused" aria-label={t('thread.refusedFiles')}>
                  {m.arquivosRecusados.map((f, i) => (
                    <li key={i}>
                      <span title={f.detalhe}>{t('thread.refusedFile', { name: f.nome, reason: t(`thread.refusedReason.${f.motivo}`) })}</span>
                    </li>
                  ))}
                </ul>
              ) : null}
              {m.canal === 'email' && m.id !== null ? (
                <p className="sd-msg-original small">
                  <a href={originalMailUrl(ticketId, m.id)} download>
                    {t('thread.original')}
                  </a>
                </p>
              ) : null}
              {m.entrega ? (
                <p className={`sd-msg-delivery sd-delivery-${m.entrega.estado}`} data-delivery={m.entrega.estado}>
                  {t(`thread.delivery.${m.entrega.estado}`)}
                  {m.entrega.motivo ? `: ${m.entrega.motivo}` : null}
                </p>
              ) : null}
            </article>
          </li>
        );
      })}
    </ol>
  );
}

const STATUS_ACTION: Record<PatchableStatus, string> = { open: 'open', in_progress: 'pending', resolved: 'resolve', closed: 'close' };

function StatusPanel({ ticket, onStatus, onChanged }: { ticket: TicketDetail; onStatus: (s: PatchableStatus) => void; onChanged: () => void }) {
  const { t } = useTranslation(NS);
  const confirm = useConfirm();
  const notify = useNotify();
  const failureText = useFailureText();
  const reopening = (s: PatchableStatus, from: TicketStatus) => (s === 'open' || s === 'in_progress') && (from === 'resolved' || from === 'closed');
  const remove = async () => {
    const ok = await confirm({ title: t('ticket.deleteTitle', { id: ticket.id }), body: <p>{t('ticket.deleteBody')}</p>, confirmLabel: t('ticket.delete'), danger: true });
    if (!ok) return;
    try {
      await supportApi.remove(ticket.id);
      notify(t('ticket.deletedNotice', { id: ticket.id }));
      onChanged();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    }
  };
  const restore = async () => {
    try {
      const r = await supportApi.restore(ticket.id);
      notify(t('ticket.restored', { id: ticket.id, status: t(`status.${r.status}`) }));
      onChanged();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    }
  };
  return (
    <Panel title={t('status.title')}>
      <p className="sd-current">
        {t('status.current')} <StatusBadge status={ticket.status} />
      </p>
      <div className="sd-side-actions">
        {nextStatuses(ticket.status).map((s) => (
          <button key={s} type="button" className={s === 'resolved' ? undefined : 'secondary'} onClick={() => onStatus(s)}>
            {reopening(s, ticket.status) && s === 'open' ? t('status.actions.reopen') : t(`status.actions.${STATUS_ACTION[s]}`)}
          </button>
        ))}
        {ticket.status === 'deleted' ? (
          <button type="button" onClick={() => void restore()}>
            {t('ticket.restore')}
          </button>
        ) : (
          <button type="button" className="secondary danger-outline" onClick={() => void remove()}>
            {t('ticket.delete')}
          </button>
        )}
      </div>
    </Panel>
  );
}

function AssigneePanel({ ticket, problem, onAssign }: { ticket: Ticket; problem: string | null; onAssign: (to: string | null) => Promise<boolean> }) {
  const { t } = useTranslation(NS);
  const { me, can } = useStaff();
  const manager = can('support.manager');
  const ids = useId();
  const [other, setOther] = useState('');
  const mine = ticket.assignee?.toLowerCase() === me.email.toLowerCase();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!other.trim()) return;
    if (await onAssign(other.trim())) setOther('');
  };
  return (
    <Panel title={t('assign.title')}>
      <p className="sd-current" data-testid="assignee">
        {ticket.assignee ? (
          mine ? (
            <>
              <strong>{t('assign.you')}</strong>
              <span className="muted small sd-you">
                <Address email={me.email} />
              </span>
            </>
          ) : (
            <Address email={ticket.assignee} />
          )
        ) : (
          <span className="muted">{t('queue.nobody')}</span>
        )}
      </p>
      {ticket.status === 'deleted' || (ticket.assignee && !mine && !manager) ? null : (
        <div className="sd-side-actions">
          {!ticket.assignee ? (
            <button type="button" onClick={() => void onAssign(me.email)}>
              {t('assign.toMe')}
            </button>
          ) : null}
          {ticket.assignee && (mine || manager) ? (
            <button type="button" className="secondary" onClick={() => void onAssign(null)}>
              {t('assign.unassign')}
            </button>
          ) : null}
          {ticket.assignee && !mine && manager ? (
            <button type="button" className="secondary" onClick={() => void onAssign(me.email)}>
              {t('assign.toMe')}
            </button>
          ) : null}
        </div>
      )}
      {ticket.assignee && !mine && !manager ? <p className="muted small">{t('assign.managerOnly')}</p> : null}
      {manager && ticket.status !== 'deleted' ? (
        <form className="sd-assign-form" onSubmit={(e) => void submit(e)}>
          <label htmlFor={`${ids}-to`}>{t('assign.someone')}</label>
          <div className="row sd-search-row">
            <input id={`${ids}-to`} type="email" autoComplete="off" value={other} onChange={(e) => setOther(e.target.value)} />
            <button type="submit" className="secondary">
              {t('assign.assign')}
            </button>
          </div>
        </form>
      ) : null}
      {problem ? (
        <p role="alert" className="error small">
          {problem}
        </p>
      ) : null}
    </Panel>
  );
}

/** `onChanged` takes a change of the tags shown (two quick changes both apply, each to the tags as they are then). */
function TagsPanel({ ticket, onChanged }: { ticket: Ticket; onChanged: (change: (tags: Tag[]) => Tag[]) => void }) {
  const { t } = useTranslation(NS);
  const notify = useNotify();
  const failureText = useFailureText();
  const ids = useId();
  const [all, setAll] = useState<Tag[] | null>(null);
  const [choice, setChoice] = useState<number | ''>('');
  useEffect(() => {
    supportApi.tags().then(setAll, () => setAll([]));
  }, []);
  const available = useMemo(() => (all ?? []).filter((tag) => !ticket.tags.some((x) => x.id === tag.id)), [all, ticket.tags]);
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const tag = available.find((x) => x.id === choice) ?? available[0];
    if (!tag) return;
    try {
      await supportApi.addTag(ticket.id, tag.id);
      onChanged((tags) => [...tags.filter((x) => x.id !== tag.id), tag]);
      setChoice('');
      notify(t('tags.added', { tag: tag.name }));
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    }
  };
  const remove = async (tag: Tag) => {
    try {
      await supportApi.removeTag(ticket.id, tag.id);
      onChanged((tags) => tags.filter((x) => x.id !== tag.id));
      notify(t('tags.removed', { tag: tag.name }));
      document.getElementById(`${ids}-choice`)?.focus();
    } catch (err) {
      notify(failureText(failureOf(err)), 'error');
    }
  };
  return (
    <Panel title={t('tags.title')}>
      {ticket.tags.length ? (
        <ul className="sd-tag-list" aria-label={t('tags.label')}>
          {ticket.tags.map((tag) => (
            <li key={tag.id}>
              <TagChip tag={tag}>
                {ticket.status === 'deleted' ? null : (
                  <button type="button" className="link sd-tag-remove" aria-label={t('tags.remove', { tag: tag.name })} onClick={() => void remove(tag)}>
                    <span aria-hidden="true">×</span>
                  </button>
                )}
              </TagChip>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t('tags.none')}</p>
      )}
      {ticket.status === 'deleted' || all === null ? null : all.length === 0 ? (
        <p className="muted small">{t('tags.noneDefined')}</p>
      ) : available.length === 0 ? (
        <p className="muted small">{t('tags.allOn')}</p>
      ) : (
        <form className="sd-tag-form" onSubmit={(e) => void add(e)}>
          <label htmlFor={`${ids}-choice`}>{t('tags.add')}</label>
          <div className="row sd-search-row">
            <select id={`${ids}-choice`} value={choice === '' ? available[0]!.id : choice} onChange={(e) => setChoice(Number(e.target.value))}>
              {available.map((tag) => (
                <option key={tag.id} value={tag.id}>
                  {tag.name}
                </option>
              ))}
            </select>
            <button type="submit" className="secondary">
              {t('tags.addButton')}
            </button>
          </div>
        </form>
      )}
    </Panel>
  );
}

/** Accepted by the API (checked there from the file's content): images, PDF, text, CSV, Excel. */
const ACCEPT = 'image/jpeg,image/png,image/gif,image/webp,application/pdf,text/plain,text/csv,.csv,.txt,.xls,.xlsx';
const MAX_BYTES = 10 * 1024 * 1024;
const isImage = (a: AttachmentSummary) => /^image\/(jpeg|png|gif|webp)$/.test(a.tipoArquivo);
const isPdf = (a: AttachmentSummary) => a.tipoArquivo === 'application/pdf';

function AttachmentsPanel({ ticket, onUploaded }: { ticket: TicketDetail; onUploaded: (a: AttachmentSummary) => void }) {
  const { t, i18n } = useTranslation(NS);
  const { session } = useSession();
  const notify = useNotify();
  const failureText = useFailureText();
  const ids = useId();
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [preview, setPreview] = useState<AttachmentSummary | null>(null);
  const upload = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    const file = input.current?.files?.[0];
    if (!file) {
      setProblem(t('files.choose'));
      input.current?.focus();
      return;
    }
    if (file.size > MAX_BYTES) {
      setProblem(t('files.tooBig'));
      return;
    }
    setBusy(true);
    try {
      const a = await uploadAttachment(ticket.id, file, session?.csrfToken ?? '');
      onUploaded(a);
      notify(t('files.uploaded', { name: a.nomeArquivo }));
      if (input.current) input.current.value = '';
    } catch (err) {
      setProblem(failureText(failureOf(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Panel title={t('files.title')}>
      {ticket.anexos.length === 0 ? (
        <EmptyState>{t('files.none')}</EmptyState>
      ) : (
        <ul className="sd-files">
          {ticket.anexos.map((a) => (
            <li key={a.id}>
              {isImage(a) ? (
                <button type="button" className="sd-thumb" onClick={() => setPreview(a)} aria-label={t('files.preview', { name: a.nomeArquivo })}>
                  <img src={attachmentUrl(a.id)} alt="" loading="lazy" />
                </button>
              ) : isPdf(a) ? (
                <button type="button" className="sd-file-icon sd-thumb" onClick={() => setPreview(a)} aria-label={t('files.preview', { name: a.nomeArquivo })}>
                  PDF
                </button>
              ) : (
                <span className="sd-file-icon" aria-hidden="true">
                  {a.tipoArquivo === 'application/pdf' ? 'PDF' : a.tipoArquivo.startsWith('text/') ? 'TXT' : 'XLS'}
                </span>
              )}
              <span className="sd-file-info">
                <span className="sd-file-name">{a.nomeArquivo}</span>
                <span className="muted small">
                  {formatSize(a.tamanhoArquivo, i18n.language)} · <When iso={a.createdAt} />
                </span>
                <a href={attachmentUrl(a.id)} download={a.nomeArquivo} className="small">
                  {t('files.download')}
                  <span className="visually-hidden"> {a.nomeArquivo}</span>
                </a>
              </span>
            </li>
          ))}
        </ul>
      )}
      {ticket.status === 'deleted' ? null : (
        <form className="sd-upload" onSubmit={(e) => void upload(e)}>
          <label htmlFor={`${ids}-file`}>{t('files.attach')}</label>
          <input id={`${ids}-file`} ref={input} type="file" accept={ACCEPT} aria-describedby={`${ids}-help`} />
          <p id={`${ids}-help`} className="muted small staff-help">
            {t('files.help')}
          </p>
          <button type="submit" className="secondary" disabled={busy}>
            {busy ? t('files.uploading') : t('files.upload')}
          </button>
          {problem ? (
            <p role="alert" className="error small">
              {problem}
            </p>
          ) : null}
        </form>
      )}
      <Modal open={preview !== null} title={preview?.nomeArquivo ?? ''} onClose={() => setPreview(null)} className="sd-preview-dialog">
        {preview ? (
          <>
            {isPdf(preview) ? (
              // The PDF answered to be shown (inline=true), framable by this site only: the browser's own viewer.
              <iframe className="sd-preview sd-preview-pdf" src={`${attachmentUrl(preview.id)}?inline=true`} title={t('files.previewPdf', { name: preview.nomeArquivo })} />
            ) : (
              <img className="sd-preview" src={attachmentUrl(preview.id)} alt={t('files.previewAlt', { name: preview.nomeArquivo })} />
            )}
            <div className="staff-dialog-actions">
              <a href={attachmentUrl(preview.id)} download={preview.nomeArquivo}>
                {t('files.download')}
              </a>
              <button type="button" data-autofocus="" onClick={() => setPreview(null)}>
                {t('files.close')}
              </button>
            </div>
          </>
        ) : null}
      </Modal>
    </Panel>
  );
}

function OtherTickets({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation(NS);
  const [others, setOthers] = useState<Ticket[] | null>(null);
  const [total, setTotal] = useState(0);
  useEffect(() => {
    let gone = false;
    supportApi.byRequester(ticket.email, 11).then(
      (p) => {
        if (gone) return;
        setOthers(p.items.filter((x) => x.id !== ticket.id).slice(0, 10));
        setTotal(Math.max(0, p.total - 1));
      },
      () => !gone && setOthers([]),
    );
    return () => {
      gone = true;
    };
  }, [ticket.email, ticket.id]);
  return (
    <Panel title={t('others.title')}>
      {others === null ? (
        <LoadingState />
      ) : others.length === 0 ? (
        <p className="muted">{t('others.none')}</p>
      ) : (
        <>
          <ul className="sd-others">
            {others.map((o) => (
              <li key={o.id}>
                <Link to={`/staff/support/${o.id}`}>
                  #{o.id} {o.issue}
                </Link>
                <span className="sd-others-meta">
                  <StatusBadge status={o.status} /> <When iso={o.createdAt} />
                </span>
              </li>
            ))}
          </ul>
          {total > others.length ? <p className="muted small">{t('others.more', { count: total - others.length })}</p> : null}
        </>
      )}
    </Panel>
  );
}
