/**
 * A section of the staff console, as its folder declares it (./<section>/index.ts) and the console
 * lists it (./sections.ts): where it is, who sees it, its words, and its page, a chunk of its own
 * loaded when first shown. Everything else of a section stays in its folder.
 */
import type { ComponentType } from 'react';
import type { StaffPermission } from './roles';

/** A section's words: at least its title (the navigation's label and the page's heading). */
export interface SectionMessages {
  title: string;
  [key: string]: unknown;
}

export interface StaffSection {
  /** The folder's name; its words are the i18next namespace `staff-<id>` (./i18n.ts sectionNs). */
  id: string;
  /** Its route, under /staff/ (the section's own routes go below it: `/staff/support/:id`). */
  path: string;
  /** The permission that shows it in the navigation and opens it (the API checks it too). */
  permission: StaffPermission;
  messages: { en: SectionMessages; pt: SectionMessages };
  /** The section's page (a default export): `() => import('./SupportPage')`. */
  load: () => Promise<{ default: ComponentType }>;
}

/** A section's declaration, with English and Portuguese held to the same keys. */
export function defineSection<M extends SectionMessages>(section: Omit<StaffSection, 'messages'> & { messages: { en: M; pt: M } }): StaffSection {
  return section;
}
