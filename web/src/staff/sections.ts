/**
 * The console's sections, in the navigation's order. Each is declared in its own folder
 * (./<section>/index.ts: path, permission, words, page), so that a section's work touches its
 * folder alone; a new section adds one line here.
 */
import { aiSection } from './ai';
import { membersSection } from './members';
import { newsSection } from './news';
import { opsSection } from './ops';
import { quizSection } from './quiz';
import { reportsSection } from './reports';
import type { StaffSection } from './section';
import { supportSection } from './support';

export const SECTIONS: readonly StaffSection[] = [supportSection, reportsSection, newsSection, quizSection, aiSection, opsSection, membersSection];
