/**
 * The reports' queries (issue 14): aggregation pipelines over indexed fields, computed by the
 * database; nothing is loaded into Node but their results.
 */
import type { Connection } from 'mongoose';
import { collectionOf } from '../infra/mongo';
import type { MessageDoc, StatusEventDoc, TicketDoc } from './support.model';
import { PATCHABLE_STATUSES, TICKET_CHANNELS, type PatchableStatus, type TicketChannel } from './ticket.rules';

/** The filters reports share (spec: data_inicio, data_fim, status, main, issue, agente, newsletter, tag). */
export interface ReportFilter {
  from: Date;
  to: Date;
  status?: PatchableStatus | undefined;
  main?: string | undefined;
  issue?: string | undefined;
  newsletter?: string | undefined;
  tag?: number | undefined;
  /** Tickets this agent changed the status of or answered. */
  agente?: string | undefined;
  /** Tickets opened through this channel (issue 39): the API or e-mail. */
  canal?: TicketChannel | undefined;
}

/** A ticket's channel: those stored before channels were recorded all came by the API. */
const channelMatch = (canal: TicketChannel) => (canal === 'api' ? { canal: { $in: ['api', null] } } : { canal });

/** median, p90, mean and count of durations in seconds (null when there are none). */
export interface DurationStats {
  median: number | null;
  p90: number | null;
  mean: number | null;
  count: number;
}

const seconds = (end: string) => ({ $divide: [{ $subtract: [end, '$createdAt'] }, 1000] });
const at = (index: unknown) => ({ $arrayElemAt: ['$values', index] });
const half = { $floor: { $divide: ['$count', 2] } };

/**
 * Exact statistics of a sorted `values` array the pipeline built: the median (the middle value, or
 * the mean of the two middle ones), the nearest-rank 90th percentile, the mean. Both branches of a
 * `$cond` are evaluated by DocumentDB, so every index is a whole number.
 */
const STATS_STAGE = {
  $project: {
    _id: 0,
    count: 1,
    mean: 1,
    p90: at({ $subtract: [{ $ceil: { $multiply: [0.9, '$count'] } }, 1] }),
    median: { $cond: [{ $eq: [{ $mod: ['$count', 2] }, 1] }, at(half), { $avg: [at({ $subtract: [half, 1] }), at(half)] }] },
  },
};

/** The same statistics per group (`_id` kept). */
const GROUP_STATS_STAGE = { $project: { ...STATS_STAGE.$project, _id: 1 } };

const round2 = (n: number | null) => (n === null ? null : Math.round(n * 100) / 100);

export interface PeriodCounts {
  totalTickets: number;
  ticketsByStatus: Record<PatchableStatus, number>;
}

export function createReportRepo(conn: Connection) {
  const tickets = () => collectionOf<TicketDoc>(conn, 'tickets');
  const events = () => collectionOf<StatusEventDoc>(conn, 'ticket_status_events');
  const messages = () => collectionOf<MessageDoc>(conn, 'ticket_messages');

  /** The tickets an agent acted on: changed their status (not by creating them), answered them, or is assigned (issue 38). */
  async function ticketsOf(agent: string): Promise<number[]> {
    const [changed, answered, assigned] = await Promise.all([
      events().aggregate<{ _id: number }>([{ $match: { by: agent, source: { $ne: 'create' } } }, { $group: { _id: '$ticketId' } }]).toArray(),
      messages().aggregate<{ _id: number }>([{ $match: { remetente: agent, origem: 'admin' } }, { $group: { _id: '$ticketId' } }]).toArray(),
      tickets().find({ assignee: agent.toLowerCase() }, { projection: { _id: 1 } }).toArray(),
    ]);
    return [...new Set([...changed, ...answered, ...assigned].map((r) => r._id))];
  }

  /** The `$match` of a filter: tickets created in the period (deleted ones left out) and the rest. */
  async function matchOf(f: ReportFilter): Promise<Record<string, unknown>> {
    return {
      createdAt: { $gte: f.from, $lt: f.to },
      status: f.status ?? { $in: [...PATCHABLE_STATUSES] },
      ...(f.main !== undefined ? { main: f.main } : {}),
      ...(f.issue !== undefined ? { issue: f.issue } : {}),
      ...(f.newsletter !== undefined ? { newsletter: f.newsletter } : {}),
      ...(f.tag !== undefined ? { tags: f.tag } : {}),
      ...(f.agente !== undefined ? { _id: { $in: await ticketsOf(f.agente) } } : {}),
      ...(f.canal !== undefined ? channelMatch(f.canal) : {}),
    };
  }

  async function durations(match: Record<string, unknown>, end: '$firstAdminReplyAt' | '$resolvedAt'): Promise<DurationStats> {
    const field = end.slice(1);
    const [row] = await tickets()
      .aggregate<DurationStats>([
        { $match: { ...match, [field]: { $type: 'date' } } },
        { $project: { s: seconds(end) } },
        { $sort: { s: 1 } },
        { $group: { _id: null, values: { $push: '$s' }, mean: { $avg: '$s' }, count: { $sum: 1 } } },
        STATS_STAGE,
      ])
      .toArray();
    return row ? { median: round2(row.median), p90: round2(row.p90), mean: round2(row.mean), count: row.count } : { median: null, p90: null, mean: null, count: 0 };
  }

  /** A date's ISO week, `YYYY-Www`, in a time zone (%G: ISO week-numbering year, %V: ISO week). */
  const isoWeekKey = (timeZone: string) => ({ $dateToString: { date: '$createdAt', timezone: timeZone, format: '%G-W%V' } });

  /**
   * A `$match` on a ticket's messages or status events selecting those of the tickets a filter
   * selects, without joining the tickets: by the creation time they carry (`ticketCreatedAt`,
   * indexed), leaving out the period's deleted tickets (few, by the status index); when other
   * filters are given, by the ids of the tickets `match` (matchOf of the same filter) selects.
   */
  async function ofTickets(f: ReportFilter, match: Record<string, unknown>): Promise<Record<string, unknown>> {
    const period = { ticketCreatedAt: { $gte: f.from, $lt: f.to } };
    const idsOf = async (m: Record<string, unknown>) => (await tickets().find(m, { projection: { _id: 1 } }).toArray()).map((t) => t._id);
    const narrowed = [f.status, f.main, f.issue, f.newsletter, f.tag, f.agente, f.canal].some((v) => v !== undefined);
    if (narrowed) return { ...period, ticketId: { $in: await idsOf(match) } };
    const deleted = await idsOf({ status: 'deleted', createdAt: period.ticketCreatedAt });
    return deleted.length > 0 ? { ...period, ticketId: { $nin: deleted } } : period;
  }

  type AgentStats = DurationStats & { _id: string };
  const statsOf = (rows: AgentStats[], agent: string): DurationStats => {
    const r = rows.find((x) => x._id === agent);
    return r ? { median: round2(r.median), p90: round2(r.p90), mean: round2(r.mean), count: r.count } : { median: null, p90: null, mean: null, count: 0 };
  };

  return {
    /**
     * Per agent, over the tickets a filter selects: admin replies written, tickets resolved,
     * first-response time of the tickets whose first admin reply the agent wrote, and the time from
     * creation to each resolution the agent made (seconds; median, p90, mean, count).
     */
    async agents(f: ReportFilter) {
      const { agente, ...rest } = f;
      const match = await matchOf(rest);
      const scope = await ofTickets(rest, match);
      const who = agente === undefined ? {} : { _id: agente };
      const durationsBy = [{ $sort: { s: 1 } }, { $group: { _id: '$agent', values: { $push: '$s' }, mean: { $avg: '$s' }, count: { $sum: 1 } } }, GROUP_STATS_STAGE, { $match: who }];
      // No joins: replies and resolutions are selected by the ticket fields they carry
      // (ofTickets), first responses are the tickets' own (firstAdminReplyAt and By).
      const [replies, [resolutions], firstResponses, assigned] = await Promise.all([
        messages()
          .aggregate<{ _id: string; n: number }>([{ $match: { origem: 'admin', ...scope } }, { $group: { _id: '$remetente', n: { $sum: 1 } } }, { $match: who }])
          .toArray(),
        events()
          .aggregate<{ count: { _id: string; n: number }[]; durations: AgentStats[] }>([
            { $match: { to: 'resolved', source: { $ne: 'create' }, ...scope } },
            {
              $facet: {
                count: [{ $group: { _id: { by: '$by', ticket: '$ticketId' } } }, { $group: { _id: '$_id.by', n: { $sum: 1 } } }, { $match: who }],
                durations: [{ $project: { agent: '$by', s: { $divide: [{ $subtract: ['$at', '$ticketCreatedAt'] }, 1000] } } }, ...durationsBy],
              },
            },
          ])
          .toArray(),
        tickets()
          .aggregate<AgentStats>([{ $match: { ...match, firstAdminReplyAt: { $type: 'date' } } }, { $project: { agent: '$firstAdminReplyBy', s: seconds('$firstAdminReplyAt') } }, ...durationsBy])
          .toArray(),
        // The tickets each agent has now (assigned, of those the filter selects), whatever their status.
        tickets()
          .aggregate<{ _id: string; n: number; active: number }>([
            { $match: { ...match, assignee: { $type: 'string' } } },
            { $group: { _id: '$assignee', n: { $sum: 1 }, active: { $sum: { $cond: [{ $in: ['$status', ['open', 'in_progress']] }, 1, 0] } } } },
            { $match: who },
          ])
          .toArray(),
      ]);
      const all = [...replies, ...(resolutions?.count ?? []), ...firstResponses, ...(resolutions?.durations ?? []), ...assigned];
      const names = [...new Set(all.map((r) => r._id))].filter((a): a is string => typeof a === 'string').sort();
      return names.map((agente) => ({
        agente,
        respostas: replies.find((r) => r._id === agente)?.n ?? 0,
        ticketsResolvidos: resolutions?.count.find((r) => r._id === agente)?.n ?? 0,
        atribuidos: assigned.find((r) => r._id === agente)?.n ?? 0,
        atribuidosAtivos: assigned.find((r) => r._id === agente)?.active ?? 0,
        primeiraResposta: statsOf(firstResponses, agente),
        resolucao: statsOf(resolutions?.durations ?? [], agente),
      }));
    },

    /** One row per ticket with its metrics (newest first), a page of them, and how many match. */
    async detailed(f: ReportFilter, page: { offset: number; limit: number }) {
      const match = await matchOf(f);
      const secondsTo = (field: string) => ({ $cond: [{ $eq: [{ $type: `$${field}` }, 'date'] }, { $divide: [{ $subtract: [`$${field}`, '$createdAt'] }, 1000] }, null] });
      const [rows, total] = await Promise.all([
        tickets()
          .aggregate<{ _id: number; main: string; issue: string; status: string; newsletter: string | null; canal?: TicketChannel; createdAt: Date; primeiraRespostaSegundos: number | null; resolucaoSegundos: number | null; reaberturas: number }>([
            { $match: match },
            { $sort: { createdAt: -1, _id: -1 } },
            { $skip: page.offset },
            { $limit: page.limit },
            { $project: { main: 1, issue: 1, status: 1, newsletter: 1, canal: 1, createdAt: 1, primeiraRespostaSegundos: secondsTo('firstAdminReplyAt'), resolucaoSegundos: secondsTo('resolvedAt'), reaberturas: '$reopenCount' } },
          ])
          .toArray(),
        tickets().countDocuments(match),
      ]);
      return {
        total,
        linhas: rows.map((r) => ({ id: r._id, main: r.main, issue: r.issue, status: r.status, newsletter: r.newsletter ?? null, canal: r.canal ?? 'api', criadoEm: r.createdAt.toISOString(), primeiraRespostaSegundos: r.primeiraRespostaSegundos, resolucaoSegundos: r.resolucaoSegundos, reaberturas: r.reaberturas ?? 0 })),
      };
    },

    /**
     * Weekly cohorts: tickets created per ISO week (in `timeZone`) and how many of them were
     * resolved within 1, 3 and 7 days of their creation (by `resolvedAt`, the latest resolution).
     */
    async cohorts(f: ReportFilter, timeZone: string): Promise<{ semana: string; criados: number; em1Dia: number; em3Dias: number; em7Dias: number }[]> {
      const took = { $cond: [{ $eq: [{ $type: '$resolvedAt' }, 'date'] }, { $subtract: ['$resolvedAt', '$createdAt'] }, null] };
      const within = (days: number) => ({ $sum: { $cond: [{ $and: [{ $ne: ['$took', null] }, { $lte: ['$took', days * 86_400_000] }] }, 1, 0] } });
      const rows = await tickets()
        .aggregate<{ _id: string; criados: number; em1Dia: number; em3Dias: number; em7Dias: number }>([
          { $match: await matchOf(f) },
          { $project: { week: isoWeekKey(timeZone), took } },
          { $group: { _id: '$week', criados: { $sum: 1 }, em1Dia: within(1), em3Dias: within(3), em7Dias: within(7) } },
          { $sort: { _id: 1 } },
        ])
        .toArray();
      return rows.map((r) => ({ semana: r._id, criados: r.criados, em1Dia: r.em1Dia, em3Dias: r.em3Dias, em7Dias: r.em7Dias }));
    },

    /** Tickets per hour of the day (0–23), ISO weekday (1 Monday – 7 Sunday) or newsletter, in `timeZone`. */
    async distribution(f: ReportFilter, by: 'hora' | 'dia_semana' | 'newsletter', timeZone: string): Promise<{ chave: string | number | null; total: number }[]> {
      const key = by === 'hora' ? { $hour: { date: '$createdAt', timezone: timeZone } } : by === 'dia_semana' ? { $isoDayOfWeek: { date: '$createdAt', timezone: timeZone } } : '$newsletter';
      const rows = await tickets()
        .aggregate<{ _id: string | number | null; total: number }>([{ $match: await matchOf(f) }, { $group: { _id: key, total: { $sum: 1 } } }])
        .toArray();
      if (by === 'newsletter') {
        // Most tickets first; on a tie, named newsletters before tickets without one, then by name.
        return rows
          .map((r) => ({ chave: r._id ?? null, total: r.total }))
          .sort((a, b) => b.total - a.total || Number(a.chave === null) - Number(b.chave === null) || String(a.chave).localeCompare(String(b.chave)));
      }
      // Every hour or weekday, those without tickets too.
      const keys = by === 'hora' ? Array.from({ length: 24 }, (_, h) => h) : [1, 2, 3, 4, 5, 6, 7];
      return keys.map((k) => ({ chave: k, total: rows.find((r) => r._id === k)?.total ?? 0 }));
    },

    /**
     * Tickets created per hour, day, ISO week, month or year (in `timeZone`), and how many of them
     * are resolved or closed now; periods without tickets are left out.
     */
    async series(f: ReportFilter, grouping: 'hora' | 'dia' | 'semana' | 'mes' | 'ano', timeZone: string): Promise<{ periodo: string; criados: number; resolvidos: number }[]> {
      const key =
        grouping === 'semana'
          ? isoWeekKey(timeZone)
          : { $dateToString: { date: '$createdAt', timezone: timeZone, format: { hora: '%Y-%m-%d %H:00', dia: '%Y-%m-%d', mes: '%Y-%m', ano: '%Y' }[grouping] } };
      const rows = await tickets()
        .aggregate<{ _id: string; criados: number; resolvidos: number }>([
          { $match: await matchOf(f) },
          { $group: { _id: key, criados: { $sum: 1 }, resolvidos: { $sum: { $cond: [{ $in: ['$status', ['resolved', 'closed']] }, 1, 0] } } } },
          { $sort: { _id: 1 } },
        ])
        .toArray();
      return rows.map((r) => ({ periodo: r._id, criados: r.criados, resolvidos: r.resolvidos }));
    },

    /** Per main category and issue: tickets by status and the share resolved (most tickets first). */
    async byCategory(f: ReportFilter) {
      const rows = await tickets()
        .aggregate<{ _id: { main: string; issue: string }; total: number; open: number; in_progress: number; resolved: number; closed: number }>([
          { $match: await matchOf(f) },
          {
            $group: {
              _id: { main: '$main', issue: '$issue' },
              total: { $sum: 1 },
              ...Object.fromEntries(PATCHABLE_STATUSES.map((st) => [st, { $sum: { $cond: [{ $eq: ['$status', st] }, 1, 0] } }])),
            },
          },
        ])
        .toArray();
      return rows
        .map((r) => ({
          main: r._id.main,
          issue: r._id.issue,
          total: r.total,
          abertos: r.open,
          emAndamento: r.in_progress,
          resolvidos: r.resolved,
          fechados: r.closed,
          taxaResolucao: Math.round(((r.resolved + r.closed) / r.total) * 10_000) / 100,
        }))
        .sort((a, b) => b.total - a.total || a.main.localeCompare(b.main) || a.issue.localeCompare(b.issue));
    },

    /**
     * The dashboard at `now`: open and in-progress tickets, those no admin has answered yet, the
     * oldest of them; tickets created and resolved since the start of today and of the week.
     */
    async dashboard(now: Date, todayStart: Date, weekStart: Date) {
      const active = { status: { $in: ['open' as const, 'in_progress' as const] }, createdAt: { $lt: now } };
      const count = (filter: Record<string, unknown>) => tickets().countDocuments(filter);
      const resolved = (from: Date) => count({ status: { $in: ['resolved', 'closed'] }, resolvedAt: { $gte: from, $lt: now } });
      const created = (from: Date) => count({ createdAt: { $gte: from, $lt: now }, status: { $in: [...PATCHABLE_STATUSES] } });
      const [abertos, emAndamento, semResposta, criadosHoje, criadosSemana, resolvidosHoje, resolvidosSemana, oldest] = await Promise.all([
        count({ ...active, status: 'open' }),
        count({ ...active, status: 'in_progress' }),
        count({ ...active, firstAdminReplyAt: null }),
        created(todayStart),
        created(weekStart),
        resolved(todayStart),
        resolved(weekStart),
        tickets().find(active, { sort: { createdAt: 1 }, limit: 1, projection: { _id: 1, createdAt: 1, status: 1 } }).toArray(),
      ]);
      const first = oldest[0];
      return {
        abertos,
        emAndamento,
        semResposta,
        criados: { hoje: criadosHoje, semana: criadosSemana },
        resolvidos: { hoje: resolvidosHoje, semana: resolvidosSemana },
        maisAntigoAberto: first ? { id: first._id, status: first.status, createdAt: first.createdAt.toISOString(), idadeSegundos: Math.floor((now.getTime() - first.createdAt.getTime()) / 1000) } : null,
      };
    },

    /**
     * Resolution metrics of the tickets a filter selects: first-response time (creation to the
     * first admin reply), resolution time (creation to the resolution), in seconds; and how many of
     * the tickets ever resolved were reopened.
     */
    async resolutionMetrics(f: ReportFilter) {
      const match = await matchOf(f);
      const [primeiraResposta, resolucao, reopen] = await Promise.all([
        durations(match, '$firstAdminReplyAt'),
        durations(match, '$resolvedAt'),
        tickets()
          .aggregate<{ resolvidos: number; reabertos: number }>([
            { $match: { ...match, $or: [{ resolvedAt: { $type: 'date' } }, { reopenCount: { $gt: 0 } }] } },
            { $group: { _id: null, resolvidos: { $sum: 1 }, reabertos: { $sum: { $cond: [{ $gt: ['$reopenCount', 0] }, 1, 0] } } } },
          ])
          .toArray(),
      ]);
      const { resolvidos = 0, reabertos = 0 } = reopen[0] ?? {};
      return { primeiraResposta, resolucao, reabertura: { taxa: resolvidos === 0 ? 0 : Math.round((reabertos / resolvidos) * 10_000) / 100, reabertos, resolvidos } };
    },

    /** Tickets created in [from, to) (deleted ones left out) that match the filters, by their status now. */
    async periodCounts(from: Date, to: Date, filters: Omit<ReportFilter, 'from' | 'to'> = {}): Promise<PeriodCounts> {
      const rows = await tickets()
        .aggregate<{ _id: PatchableStatus; n: number }>([
          { $match: await matchOf({ from, to, ...filters }) },
          { $group: { _id: '$status', n: { $sum: 1 } } },
        ])
        .toArray();
      const ticketsByStatus = Object.fromEntries(PATCHABLE_STATUSES.map((s) => [s, rows.find((r) => r._id === s)?.n ?? 0])) as Record<PatchableStatus, number>;
      return { totalTickets: PATCHABLE_STATUSES.reduce((sum, s) => sum + ticketsByStatus[s], 0), ticketsByStatus };
    },

    /** What the reports can be filtered by, from the data: categories with their issues, agents, newsletters. */
    async filterOptions(): Promise<{ categorias: { main: string; issues: string[] }[]; agentes: string[]; newsletters: string[]; canais: TicketChannel[] }> {
      const [categories, newsletters, actors, repliers, assignees] = await Promise.all([
        tickets().aggregate<{ _id: string; issues: string[] }>([{ $group: { _id: '$main', issues: { $addToSet: '$issue' } } }, { $sort: { _id: 1 } }]).toArray(),
        tickets().aggregate<{ _id: string }>([{ $match: { newsletter: { $type: 'string' } } }, { $group: { _id: '$newsletter' } }, { $sort: { _id: 1 } }]).toArray(),
        // Staff act on tickets (status changes other than the creation) and answer them (admin messages).
        events().aggregate<{ _id: string }>([{ $match: { source: { $ne: 'create' } } }, { $group: { _id: '$by' } }]).toArray(),
        messages().aggregate<{ _id: string }>([{ $match: { origem: 'admin' } }, { $group: { _id: '$remetente' } }]).toArray(),
        // … and are assigned tickets (issue 38).
        tickets().aggregate<{ _id: string }>([{ $match: { assignee: { $type: 'string' } } }, { $group: { _id: '$assignee' } }]).toArray(),
      ]);
      const agents = [...new Set([...actors, ...repliers, ...assignees].map((r) => r._id).filter((a): a is string => typeof a === 'string' && a.length > 0))].sort();
      return {
        categorias: categories.map((c) => ({ main: c._id, issues: [...c.issues].sort() })),
        agentes: agents,
        newsletters: newsletters.map((n) => n._id),
        canais: [...TICKET_CHANNELS],
      };
    },
  };
}

export type ReportRepo = ReturnType<typeof createReportRepo>;
