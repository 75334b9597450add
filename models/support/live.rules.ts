/**
 * Live updates of the support desk (issue 38): who is viewing or replying to a ticket (presence),
 * the events a desk's open queues and tickets receive, and the cursor a reconnecting stream resumes
 * from. Pure: the hub (operations/support/live.ts) and the routes use these; the page may too.
 */
import type { TicketStatus } from './ticket.rules';

/** What a staff member is doing on a ticket: has it open, or is typing a reply. */
export const PRESENCE_STATES = ['viewing', 'replying'] as const;
export type PresenceState = (typeof PRESENCE_STATES)[number];

/** The most people one presence event or answer lists (a desk has tens of agents, never this many on one ticket). */
export const PRESENCE_PEOPLE_MAX = 100;

/** The most tag ids a `ticket` event lists (a ticket has a handful). */
export const EVENT_TAGS_MAX = 1_000;
/**
 * The longest `data` of one event: a `ticket` event with EVENT_TAGS_MAX tags, or a `presence`
 * event of PRESENCE_PEOPLE_MAX people with the longest addresses, stays well below it.
 */
export const EVENT_DATA_MAX = 65_536;

/** A staff member on a ticket. */
export interface PresencePerson {
  email: string;
  state: PresenceState;
}

/** One unexpired presence entry as stored. */
export interface PresenceEntry extends PresencePerson {
  ticketId: number;
  expiresAt: Date;
}

/** A ticket as the live stream sees it: the fields a queue row and an open ticket need to know it changed. */
export interface TicketChange {
  id: number;
  status: TicketStatus;
  /** Who works on it; undefined where the ticket was stored before assignment existed. */
  assignee?: string | null | undefined;
  updatedAt: Date;
  lastMessageAt: Date | null;
  tags: number[];
}

/** The events a stream carries. `ticket` and `presence` are states (applying one twice is harmless); `reset` asks the client to reload. */
export type LiveEvent =
  /** `readAt`: when the read that found it began (this process's clock): of two reads of one ticket the later one is its newer state. */
  | { type: 'ticket'; ticketId: number; change: TicketChange; readAt: number }
  | { type: 'presence'; ticketId: number; people: PresencePerson[] }
  | { type: 'reset'; reason: ResetReason };

/**
 * Why a stream asks its client to reload what it shows: the Last-Event-ID is older than the resume
 * window, more tickets changed than one stream resends, or more changed at once than the hub
 * passes on (a bulk operation over hundreds of tickets).
 */
export type ResetReason = 'resume_window_passed' | 'too_many_changes' | 'stream_overflow';

/** A change's place in the ticket log: the event id a client sends back as Last-Event-ID. */
export const eventIdOf = (change: Pick<TicketChange, 'updatedAt'>): number => change.updatedAt.getTime();

/** The cursor of a Last-Event-ID (milliseconds since the epoch), or undefined when it is none of ours. */
export function parseEventId(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return Number.isSafeInteger(n) ? n : undefined;
}

/** People sorted by e-mail (so that two reads of the same set compare equal), at most PRESENCE_PEOPLE_MAX. */
export function peopleOf(entries: readonly PresencePerson[]): PresencePerson[] {
  const byEmail = new Map<string, PresenceState>();
  // Replying wins over viewing when one person has both (two tabs).
  for (const e of entries) if (byEmail.get(e.email) !== 'replying') byEmail.set(e.email, e.state);
  return [...byEmail]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, PRESENCE_PEOPLE_MAX)
    .map(([email, state]) => ({ email, state }));
}

/** A presence set as one comparable string. */
export const presenceKey = (people: readonly PresencePerson[]): string => people.map((p) => `${p.email}:${p.state}`).join(',');

/** The presence entry's id: one per ticket and person. */
export const presenceId = (ticketId: number, email: string): string => `${ticketId}:${email}`;
