/**
 * The support desk's small shared pieces: a status as a badge, a tag, a time as "5 min ago", the
 * statuses a ticket may move to (the model's transition table), and the newest message's id.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { PATCHABLE_STATUSES, TRANSITIONS } from '../../../../models/support/ticket.rules';
import { formatDateTime, sectionNs } from '../i18n';
import type { Message, PatchableStatus, PresencePerson, Tag, TicketStatus } from './api';

export const NS = sectionNs('support');

export function StatusBadge({ status }: { status: TicketStatus }) {
  const { t } = useTranslation(NS);
  return <span className={`sd-status sd-status-${status}`}>{t(`status.${status}`)}</span>;
}

/**
 * A tag: its name, after a dot of its colour. The colour is an SVG presentation attribute (`fill`),
 * which the page's CSP (style-src 'self', no inline styles) allows; the name says it all.
 */
export function TagChip({ tag, children }: { tag: Pick<Tag, 'name' | 'color'>; children?: ReactNode }) {
  return (
    <span className="sd-tag">
      <svg className="sd-tag-dot" width="8" height="8" viewBox="0 0 8 8" aria-hidden="true" focusable="false">
        <circle cx="4" cy="4" r="4" fill={tag.color} />
      </svg>
      {tag.name}
      {children}
    </span>
  );
}

/** A person's short name: the address before its @ (the staff's addresses share a domain). */
export const nameOf = (email: string): string => {
  const at = email.indexOf('@');
  return at > 0 ? email.slice(0, at) : email;
};

/** "5 min ago", "3 h ago", else the date and time; `<time>` carries the exact moment. */
export function When({ iso, now }: { iso: string; now?: number }) {
  const { i18n } = useTranslation(NS);
  return <time dateTime={iso}>{relativeTime(iso, i18n.language, now ?? Date.now())}</time>;
}

export function relativeTime(iso: string, lng: string, now: number): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { numeric: 'auto', style: 'short' });
  const abs = Math.abs(seconds);
  if (abs < 45) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return rtf.format(Math.round(seconds / 86_400), 'day');
  return formatDateTime(iso, lng);
}

/** The statuses a ticket in `from` may be set to (PATCH; deletion has its own route). */
export const nextStatuses = (from: TicketStatus): PatchableStatus[] => PATCHABLE_STATUSES.filter((s) => s !== from && TRANSITIONS[from].includes(s));

/** The id of the newest message (0: only the description), what a reply says it saw. */
export const lastMessageId = (messages: readonly Message[]): number => messages.reduce((max, m) => (m.id !== null && m.id > max ? m.id : max), 0);

/** "ana is replying, bruno is viewing": the people on a ticket other than oneself. */
export function PresenceList({ people, me, compact = false }: { people: readonly PresencePerson[]; me: string; compact?: boolean }) {
  const { t } = useTranslation(NS);
  const others = people.filter((p) => p.email.toLowerCase() !== me.toLowerCase());
  if (others.length === 0) return null;
  return (
    <ul className={compact ? 'sd-presence compact' : 'sd-presence'}>
      {others.map((p) => (
        <li key={p.email} className={`sd-presence-${p.state}`}>
          {compact ? (
            <>
              <span aria-hidden="true">{t(`presence.short.${p.state}`, { name: nameOf(p.email) })}</span>
              <span className="visually-hidden">{t(`presence.${p.state}`, { name: p.email })}</span>
            </>
          ) : (
            t(`presence.${p.state}`, { name: p.email })
          )}
        </li>
      ))}
    </ul>
  );
}

/** Bytes as "12 KB", "1.4 MB". */
export function formatSize(bytes: number, lng: string): string {
  const nf = (n: number, digits: number) => new Intl.NumberFormat(lng === 'pt' ? 'pt-BR' : 'en-GB', { maximumFractionDigits: digits }).format(n);
  if (bytes < 1024) return `${nf(bytes, 0)} B`;
  if (bytes < 1024 * 1024) return `${nf(bytes / 1024, 0)} KB`;
  return `${nf(bytes / (1024 * 1024), 1)} MB`;
}
