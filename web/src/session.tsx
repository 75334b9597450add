/** The signed-in account, shared by the pages. */
import { createContext, useContext } from 'react';
import type { SessionView } from './api';

export interface SessionState {
  session: SessionView | null;
  refresh(): Promise<void>;
  signedIn(s: SessionView): void;
  signOut(everywhere: boolean): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionContext');
  return s;
}
