/** The signed-in member, for every page of the console: its address, roles and permissions. */
import { createContext, useContext } from 'react';
import type { StaffMe } from './api';
import type { StaffPermission } from './roles';

export interface StaffAccess {
  me: StaffMe;
  can(permission: StaffPermission): boolean;
  /** Reads GET /api/staff/me again (after a change to one's own roles): the navigation follows. */
  reload(): Promise<void>;
}

export const StaffContext = createContext<StaffAccess | null>(null);

export function useStaff(): StaffAccess {
  const access = useContext(StaffContext);
  if (!access) throw new Error('useStaff outside the staff console');
  return access;
}
