/** The staff members section: members, invitations, roles, removals and the audit log (staff.manage, owners). */
import { defineSection } from '../section';
import { en, pt } from './i18n';

export const membersSection = defineSection({
  id: 'members',
  path: 'members',
  permission: 'staff.manage',
  messages: { en, pt },
  load: () => import('./MembersPage'),
});
