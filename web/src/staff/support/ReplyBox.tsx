/**
 * The reply box of a ticket: one text area, sent as a reply to the requester ("Send reply") or
 * kept for the staff ("Add internal note"). A quick reply is inserted into it (and may be edited);
 * sent unchanged it goes through the quick reply's own operation, which counts its use. The AI's
 * draft (POST …/fast-response, send: false) is put into it to be read and edited before sending.
 *
 * Sending says which message the member saw last (`lastSeenMessageId`): when someone else wrote
 * meanwhile, the API answers 409 with those messages, shown in a dialog that asks before sending
 * anyway (`force: true`). The quick reply's operation has no such check, so the page checks first.
 */
import { useEffect, useId, useMemo, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useStaff } from '../access';
import { failureOf } from '../api';
import { Address, Modal, useConfirm, useFailureText, useNotify } from '../ui';
import { supportApi, type Message, type QuickReply, type TicketDetail } from './api';
import { NS, When } from './parts';

interface Conflict {
  newer: Message[];
  lastId: number;
}

export function ReplyBox({
  ticket,
  draft,
  setDraft,
  editor,
  seen,
  onFocusChange,
  onSent,
}: {
  ticket: TicketDetail;
  draft: string;
  setDraft: (text: string) => void;
  editor: RefObject<HTMLTextAreaElement | null>;
  seen: RefObject<number>;
  onFocusChange: (focused: boolean) => void;
  onSent: (message: Message) => void;
}) {
  const { t } = useTranslation(NS);
  const { me } = useStaff();
  const notify = useNotify();
  const confirm = useConfirm();
  const failureText = useFailureText();
  const ids = useId();
  const [quickReplies, setQuickReplies] = useState<QuickReply[] | null>(null);
  const [choice, setChoice] = useState<number | ''>('');
  /** The quick reply last inserted: sent as it is, it goes through its own operation (its use counted). */
  const [inserted, setInserted] = useState<QuickReply | null>(null);
  const [busy, setBusy] = useState<'reply' | 'note' | 'ai' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [aiNote, setAiNote] = useState('');
  const [conflict, setConflict] = useState<Conflict | null>(null);

  useEffect(() => {
    supportApi.quickReplies().then(setQuickReplies, () => setQuickReplies([]));
  }, []);
  const groups = useMemo(() => {
    const byCategory = new Map<string, QuickReply[]>();
    for (const q of quickReplies ?? []) {
      const key = q.category ?? '';
      byCategory.set(key, [...(byCategory.get(key) ?? []), q]);
    }
    return [...byCategory].sort((a, b) => a[0].localeCompare(b[0]));
  }, [quickReplies]);

  const asQuickReply = inserted !== null && draft.trim() === inserted.content.trim();
  const focusEditor = () => window.setTimeout(() => editor.current?.focus(), 0);

  const insert = () => {
    const q = (quickReplies ?? []).find((x) => x.id === choice) ?? quickReplies?.[0];
    if (!q) return;
    setDraft(draft.trim() ? `${draft.trimEnd()}\n\n${q.content}` : q.content);
    setInserted(q);
    setProblem(null);
    focusEditor();
  };

  /** Messages from someone else newer than what the member saw (the quick reply's operation does not check). */
  const newerThanSeen = async (): Promise<Conflict | null> => {
    const d = await supportApi.detail(ticket.id);
    const newer = d.mensagens.filter((m) => m.id !== null && m.id > seen.current && m.remetente.toLowerCase() !== me.email.toLowerCase());
    return newer.length ? { newer, lastId: Math.max(...newer.map((m) => m.id!)) } : null;
  };

  const sendReply = async (force = false) => {
    const text = draft.trim();
    setProblem(null);
    if (!text) {
      setProblem(t('reply.empty'));
      editor.current?.focus();
      return;
    }
    setBusy('reply');
    try {
      let message: Message;
      if (asQuickReply && inserted) {
        if (!force) {
          const newer = await newerThanSeen();
          if (newer) {
            setConflict(newer);
            return;
          }
        }
        message = await supportApi.sendQuickReply(ticket.id, inserted.id);
      } else {
        message = await supportApi.reply(ticket.id, text, seen.current, force);
      }
      setDraft('');
      setInserted(null);
      setAiNote('');
      notify(asQuickReply && inserted ? t('reply.sentQuick', { title: inserted.title }) : t('reply.sent'));
      onSent(message);
    } catch (err) {
      const f = failureOf(err);
      if (f.status === 409 && f.details.reason === 'newer_messages' && Array.isArray(f.details.newer)) {
        setConflict({ newer: f.details.newer as Message[], lastId: Number(f.details.lastMessageId) || seen.current });
        return;
      }
      setProblem(failureText(f));
    } finally {
      setBusy(null);
    }
  };

  const addNote = async () => {
    const text = draft.trim();
    setProblem(null);
    if (!text) {
      setProblem(t('reply.empty'));
      editor.current?.focus();
      return;
    }
    setBusy('note');
    try {
      const message = await supportApi.note(ticket.id, text);
      setDraft('');
      setInserted(null);
      setAiNote('');
      notify(t('reply.noted'));
      onSent(message);
    } catch (err) {
      setProblem(failureText(failureOf(err)));
    } finally {
      setBusy(null);
    }
  };

  const draftWithAi = async () => {
    setProblem(null);
    if (draft.trim()) {
      const ok = await confirm({ title: t('reply.aiReplaceTitle'), body: <p>{t('reply.aiReplaceBody')}</p>, confirmLabel: t('reply.aiReplace') });
      if (!ok) return;
    }
    setBusy('ai');
    setAiNote(t('reply.aiWorking'));
    try {
      const r = await supportApi.draft(ticket.id);
      setDraft(r.replied);
      setInserted(null);
      setAiNote(t('reply.aiReady'));
      focusEditor();
    } catch (err) {
      const f = failureOf(err);
      setAiNote('');
      setProblem(f.kind === 'unavailable' ? (f.status === 504 ? t('reply.aiTimeout') : t('reply.aiUnavailable')) : failureText(f));
    } finally {
      setBusy(null);
    }
  };

  const hint = asQuickReply && inserted ? t('reply.quickAsIs', { title: inserted.title }) : inserted ? t('reply.quickEdited', { title: inserted.title }) : aiNote;
  return (
    <section className="card sd-reply" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>{t('reply.title')}</h2>
      <div className="sd-reply-tools">
        <div className="staff-field sd-quick">
          <label htmlFor={`${ids}-quick`}>{t('reply.quick')}</label>
          <div className="row sd-search-row">
            <select id={`${ids}-quick`} value={choice} onChange={(e) => setChoice(Number(e.target.value))} disabled={!quickReplies?.length}>
              {quickReplies && quickReplies.length === 0 ? <option value="">{t('reply.noQuick')}</option> : null}
              {groups.map(([category, list]) =>
                category ? (
                  <optgroup key={category} label={category}>
                    {list.map((q) => (
                      <option key={q.id} value={q.id}>
                        {q.title}
                      </option>
                    ))}
                  </optgroup>
                ) : (
                  list.map((q) => (
                    <option key={q.id} value={q.id}>
                      {q.title}
                    </option>
                  ))
                ),
              )}
            </select>
            <button type="button" className="secondary" onClick={insert} disabled={!quickReplies?.length}>
              {t('reply.insert')}
            </button>
          </div>
        </div>
        <button type="button" className="secondary sd-ai" onClick={() => void draftWithAi()} disabled={busy !== null}>
          {busy === 'ai' ? t('reply.aiWorkingShort') : t('reply.ai')}
        </button>
      </div>
      <label htmlFor={`${ids}-text`} className="sd-editor-label">
        {t('reply.label')}
      </label>
      <textarea
        id={`${ids}-text`}
        ref={editor}
        className="sd-editor"
        rows={7}
        value={draft}
        onChange={(e) => {
          setDraft(e.target.value);
          if (!e.target.value.trim()) setInserted(null);
        }}
        onFocus={() => onFocusChange(true)}
        onBlur={() => onFocusChange(false)}
        onKeyDown={(e) => {
          // Ctrl+Enter (⌘+Enter) sends; Escape leaves the box, so the page's shortcuts work again.
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void sendReply();
          } else if (e.key === 'Escape') {
            e.currentTarget.blur();
          }
        }}
        aria-describedby={`${ids}-help`}
      />
      <p id={`${ids}-help`} className="muted small staff-help sd-reply-help" aria-live="polite">
        {hint || t('reply.help')}
      </p>
      {problem ? (
        <p role="alert" className="error small">
          {problem}
        </p>
      ) : null}
      <div className="sd-reply-actions">
        <button type="button" className="secondary sd-note-button" onClick={() => void addNote()} disabled={busy !== null}>
          {busy === 'note' ? t('reply.noting') : t('reply.note')}
        </button>
        <button type="button" onClick={() => void sendReply()} disabled={busy !== null}>
          {busy === 'reply' ? t('reply.sending') : asQuickReply ? t('reply.sendQuick') : t('reply.send')}
        </button>
      </div>

      <Modal open={conflict !== null} title={t('conflict.title')} onClose={() => setConflict(null)} className="sd-conflict-dialog">
        {conflict ? (
          <>
            <p>{t('conflict.lead', { count: conflict.newer.length })}</p>
            <ol className="sd-thread sd-conflict-list">
              {conflict.newer.map((m) => (
                <li key={m.id ?? 0} className={`sd-msg sd-msg-${m.origem}`}>
                  <div className="sd-msg-head">
                    <span className="sd-msg-who">
                      <span className="sd-msg-kind">{t(`thread.kind.${m.origem}`)}</span> <Address email={m.remetente} />
                    </span>
                    <span className="sd-msg-when">
                      <When iso={m.createdAt} />
                    </span>
                  </div>
                  <div className="sd-msg-body">{m.conteudo}</div>
                </li>
              ))}
            </ol>
            <div className="staff-dialog-actions">
              <button
                type="button"
                className="secondary"
                data-autofocus=""
                onClick={() => {
                  // Read now: the next send says so.
                  seen.current = Math.max(seen.current, conflict.lastId);
                  setConflict(null);
                  focusEditor();
                }}
              >
                {t('conflict.back')}
              </button>
              <button
                type="button"
                onClick={() => {
                  setConflict(null);
                  void sendReply(true);
                }}
              >
                {t('conflict.send')}
              </button>
            </div>
          </>
        ) : null}
      </Modal>
    </section>
  );
}
