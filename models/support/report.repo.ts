/**
 * The reports' queries (issue 14): aggregation pipelines over indexed fields, computed by the
 * database; nothing is loaded into Node but their results.
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';
import type { MessageDoc, StatusEventDoc, TicketDoc } from './support.model';
import { PATCHABLE_STATUSES, type PatchableStatus } from './ticket.rules';

export interface PeriodCounts {
  totalTickets: number;
  ticketsByStatus: Record<PatchableStatus, number>;
}

export function createReportRepo(conn: Connection) {
  const tickets = () => collectionOf<TicketDoc>(conn, 'tickets');
  const events = () => collectionOf<StatusEventDoc>(conn, 'ticket_status_events');
  const messages = () => collectionOf<MessageDoc>(conn, 'ticket_messages');
  return {
    /** Tickets created in [from, to) (deleted ones left out), by their status now. */
    async periodCounts(from: Date, to: Date): Promise<PeriodCounts> {
      const rows = await tickets()
        .aggregate<{ _id: PatchableStatus; n: number }>([
          { $match: { createdAt: { $gte: from, $lt: to }, status: { $in: [...PATCHABLE_STATUSES] } } },
          { $group: { _id: '$status', n: { $sum: 1 } } },
        ])
        .toArray();
      const ticketsByStatus = Object.fromEntries(PATCHABLE_STATUSES.map((s) => [s, rows.find((r) => r._id === s)?.n ?? 0])) as Record<PatchableStatus, number>;
      return { totalTickets: PATCHABLE_STATUSES.reduce((sum, s) => sum + ticketsByStatus[s], 0), ticketsByStatus };
    },

    /** What the reports can be filtered by, from the data: categories with their issues, agents, newsletters. */
    async filterOptions(): Promise<{ categorias: { main: string; issues: string[] }[]; agentes: string[]; newsletters: string[] }> {
      const [categories, newsletters, actors, repliers] = await Promise.all([
        tickets().aggregate<{ _id: string; issues: string[] }>([{ $group: { _id: '$main', issues: { $addToSet: '$issue' } } }, { $sort: { _id: 1 } }]).toArray(),
        tickets().aggregate<{ _id: string }>([{ $match: { newsletter: { $type: 'string' } } }, { $group: { _id: '$newsletter' } }, { $sort: { _id: 1 } }]).toArray(),
        // Staff act on tickets (status changes other than the creation) and answer them (admin messages).
        events().aggregate<{ _id: string }>([{ $match: { source: { $ne: 'create' } } }, { $group: { _id: '$by' } }]).toArray(),
        messages().aggregate<{ _id: string }>([{ $match: { origem: 'admin' } }, { $group: { _id: '$remetente' } }]).toArray(),
      ]);
      const agents = [...new Set([...actors, ...repliers].map((r) => r._id).filter((a): a is string => typeof a === 'string' && a.length > 0))].sort();
      return {
        categorias: categories.map((c) => ({ main: c._id, issues: [...c.issues].sort() })),
        agentes: agents,
        newsletters: newsletters.map((n) => n._id),
      };
    },
  };
}

export type ReportRepo = ReturnType<typeof createReportRepo>;
