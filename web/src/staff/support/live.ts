/**
 * The desk's live updates (api/support/live.routes.ts): one Server-Sent Events stream per page
 * (the queue's carries every ticket, a ticket's page `?ticket=<id>`), and the ticket page's
 * presence heartbeat (PUT every ~10 s, at once when viewing turns to replying and back; DELETE on
 * leaving). EventSource sends the session's cookie (same origin) and reconnects by itself with
 * Last-Event-ID; a stream refused outright (429, 503…) is opened again after a pause, and the page
 * reloads what it shows then (what happened meanwhile is unknown).
 */
import { useEffect, useRef, useState } from 'react';
import type { PresenceState, TicketStatus } from './api';
import { eventsUrl, supportApi, type TicketPresence } from './api';

/** A `ticket` event: the ticket's state now. */
export interface TicketEvent {
  id: number;
  status: TicketStatus;
  /** Absent where the ticket has no such field yet (stored before assignment existed). */
  assignee?: string | null;
  updatedAt: string;
  lastMessageAt: string | null;
  tags: number[];
}

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'off';

export interface LiveHandlers {
  ticket?: (event: TicketEvent) => void;
  presence?: (presence: TicketPresence) => void;
  /** Reload what the page shows (the stream's `reset`, or a stream opened again after a refusal). */
  reset?: () => void;
}

const parse = <T>(e: Event): T | undefined => {
  try {
    return JSON.parse((e as MessageEvent<string>).data) as T;
  } catch {
    return undefined;
  }
};

/** Listens to the desk's stream while mounted; answers how it is doing (shown beside the page's title). */
export function useLiveEvents(ticketId: number | undefined, handlers: LiveHandlers): LiveStatus {
  const latest = useRef(handlers);
  useEffect(() => {
    latest.current = handlers;
  });
  const [status, setStatus] = useState<LiveStatus>('connecting');

  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      setStatus('off');
      return;
    }
    let source: EventSource | null = null;
    let timer: number | undefined;
    let stopped = false;
    let refusals = 0;
    let reopened = false;
    const open = () => {
      setStatus(reopened ? 'reconnecting' : 'connecting');
      const es = new EventSource(eventsUrl(ticketId));
      source = es;
      es.onopen = () => {
        setStatus('live');
        refusals = 0;
        if (reopened) latest.current.reset?.();
      };
      es.onerror = () => {
        if (stopped) return;
        if (es.readyState === EventSource.CLOSED) {
          // Refused (not a stream): EventSource gives up; try again later, slower each time.
          es.close();
          refusals += 1;
          reopened = true;
          setStatus('reconnecting');
          timer = window.setTimeout(open, Math.min(60_000, 5_000 * refusals));
        } else {
          setStatus('reconnecting'); // the browser reconnects by itself, with Last-Event-ID
        }
      };
      es.addEventListener('ticket', (e) => {
        const data = parse<TicketEvent>(e);
        if (data) latest.current.ticket?.(data);
      });
      es.addEventListener('presence', (e) => {
        const data = parse<TicketPresence>(e);
        if (data) latest.current.presence?.(data);
      });
      es.addEventListener('reset', () => latest.current.reset?.());
    };
    open();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
    };
  }, [ticketId]);

  return status;
}

/** How often the ticket's page says it is still there (the server keeps an entry 30 s). */
export const HEARTBEAT_MS = 10_000;

/**
 * Says the member is on a ticket, viewing or replying, while the page is open: at once, on every
 * change of state, and every {@link HEARTBEAT_MS}; says it left when the page closes. Each answer
 * (who is on the ticket now) goes to `onPeople`.
 */
export function usePresence(ticketId: number, state: PresenceState, onPeople: (presence: TicketPresence) => void, enabled = true): void {
  const stateRef = useRef(state);
  const peopleRef = useRef(onPeople);
  useEffect(() => {
    peopleRef.current = onPeople;
  });

  const say = useRef<(s: PresenceState) => void>(() => undefined);
  useEffect(() => {
    if (!enabled) return;
    let gone = false;
    say.current = (s) => {
      if (gone) return;
      supportApi.presence(ticketId, s).then(
        (p) => {
          if (!gone) peopleRef.current(p);
        },
        () => undefined, // a heartbeat missed is made up by the next
      );
    };
    say.current(stateRef.current);
    const beat = window.setInterval(() => {
      if (document.visibilityState !== 'hidden') say.current(stateRef.current);
    }, HEARTBEAT_MS);
    const leave = () => {
      void supportApi.leave(ticketId).catch(() => undefined);
    };
    // A tab closed or sent to the background for good: say so (best effort; the entry expires anyway).
    window.addEventListener('pagehide', leave);
    return () => {
      gone = true;
      window.clearInterval(beat);
      window.removeEventListener('pagehide', leave);
      leave();
    };
  }, [ticketId, enabled]);

  useEffect(() => {
    if (stateRef.current === state) return;
    stateRef.current = state;
    say.current(state);
  }, [state]);
}
