/** Who may set a ticket's assignee, and what the queue's views stand for (models/support/ticket.rules.ts). */
import { assignmentRefusal, viewFilters } from '../../models/support/ticket.rules';

const agent = { email: 'Ana@newsletter.dev', manager: false };
const manager = { email: 'chefe@newsletter.dev', manager: true };

describe('assignmentRefusal', () => {
  it('lets an agent take a ticket no one has, or keep its own, and let its own go', () => {
    expect(assignmentRefusal(agent, null, 'ana@newsletter.dev')).toBeUndefined();
    expect(assignmentRefusal(agent, 'ana@newsletter.dev', null)).toBeUndefined();
  });

  it("refuses an agent someone else's ticket, and giving a ticket to someone else", () => {
    expect(assignmentRefusal(agent, 'bruno@newsletter.dev', 'ana@newsletter.dev')).toMatch(/assigned to bruno@newsletter.dev/);
    expect(assignmentRefusal(agent, 'bruno@newsletter.dev', null)).toMatch(/only a manager/);
    expect(assignmentRefusal(agent, null, 'bruno@newsletter.dev')).toMatch(/support.manager/);
  });

  it('lets a manager assign anyone, from anyone', () => {
    expect(assignmentRefusal(manager, 'bruno@newsletter.dev', 'ana@newsletter.dev')).toBeUndefined();
    expect(assignmentRefusal(manager, 'bruno@newsletter.dev', null)).toBeUndefined();
  });
});

describe('viewFilters', () => {
  it('maps each view to its filters, mine and unassigned being the tickets still worked on', () => {
    expect(viewFilters('mine', 'Ana@newsletter.dev')).toEqual({ statuses: ['open', 'in_progress'], assignee: 'ana@newsletter.dev' });
    expect(viewFilters('unassigned', 'x@y.z')).toEqual({ statuses: ['open', 'in_progress'], assignee: null });
    expect(viewFilters('open', 'x@y.z')).toEqual({ status: 'open' });
    expect(viewFilters('pending', 'x@y.z')).toEqual({ status: 'in_progress' });
    expect(viewFilters('all', 'x@y.z')).toEqual({});
  });
});
