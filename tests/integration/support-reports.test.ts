/**
 * Support reports (issue 14, first part): the filter options and the comparison (spec §4.11,
 * §4.12) over a fixture with known instants in São Paulo (midnights at the period's edges, a
 * deleted ticket), numbers worked out by hand below; the two-hour cache shared through MongoDB.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { makeSupportDeps, supportService, type SupportDeps } from '../../api/support/service';
import { createReportCache } from '../../models/support/report-cache.repo';
import { migrateSupport, type SupportMigration } from '../../models/support/support.migrate';
import { startTestService, testConfig, tokenFor, type TestService } from '../helpers/service';

jest.setTimeout(60_000);

const db = `reports_${randomUUID().slice(0, 8)}`;
let svc: TestService<SupportDeps>;
let staffJwt: string;
let migration: SupportMigration;

const at = (iso: string) => new Date(iso);
/** id, main, issue, status, createdAt (UTC; São Paulo is UTC−3), newsletter. */
const FIXTURE: [number, string, string, string, string, string | null][] = [
  [1, 'Entrega', 'Não estou recebendo a edição', 'resolved', '2031-03-10T03:00:00Z', 'The News'], // 00:00 on 10 March in São Paulo: current
  [2, 'Entrega', 'Não estou recebendo a edição', 'open', '2031-03-10T02:59:59Z', 'The News'], // 23:59:59 on 9 March: previous
  [3, 'Prêmios', 'Não recebi meus prêmios', 'closed', '2031-03-17T02:59:59Z', 'The Bizness'], // 23:59:59 on 16 March: current
  [4, 'Prêmios', 'Prêmio com defeito', 'open', '2031-03-17T03:00:00Z', null], // 00:00 on 17 March: after the period
  [5, 'Cadastro', 'Alterações de cadastro', 'open', '2031-03-12T15:00:00Z', 'The News'], // current
  [6, 'Cadastro', 'Outros', 'in_progress', '2031-03-13T15:00:00Z', null], // current
  [7, 'Cadastro', 'Outros', 'deleted', '2031-03-14T15:00:00Z', null], // deleted: counted nowhere
  [8, 'Prêmios', 'Não recebi meus prêmios', 'resolved', '2031-03-05T12:00:00Z', null], // previous
  [9, 'Entrega', 'Não estou recebendo a edição', 'closed', '2030-03-12T12:00:00Z', null], // a year earlier
];

beforeAll(async () => {
  svc = await startTestService(supportService, makeSupportDeps, { config: testConfig({ MONGODB_DB: db }) });
  staffJwt = await tokenFor('manager-1', ['support.agent']);
  const conn = svc.deps.mongo.conn;
  await conn.db!.collection('tickets').insertMany(
    FIXTURE.map(([id, main, issue, status, created, newsletter]) => ({
      _id: id as never, main, issue, status, newsletter, description: 'fixture', email: `t${id}@example.com`, wantReply: true, replied: null, tags: [],
      statusVersion: 1, statusBeforeDelete: null, deletedAt: status === 'deleted' ? at(created) : null, firstAdminReplyAt: null, resolvedAt: null, reopenCount: 0,
      lastMessageAt: null, createdAt: at(created), updatedAt: at(created),
    })),
  );
  // Answers, resolutions and reopens (seconds after creation): 1 answered in 3,600 and resolved in
  // 86,400; 3 answered in 600, resolved in 7,200, reopened once; 5 answered in 1,800; 8 answered in
  // 120, resolved in 18,000, reopened twice; 2 and 6 never answered.
  const after = (id: number, s: number) => new Date(Date.parse(FIXTURE.find((t) => t[0] === id)![4]) + s * 1000);
  for (const [id, reply, resolved, reopens] of [[1, 3_600, 86_400, 0], [3, 600, 7_200, 1], [5, 1_800, null, 0], [8, 120, 18_000, 2]] as const) {
    await conn.db!.collection('tickets').updateOne({ _id: id as never }, { $set: { firstAdminReplyAt: after(id, reply), resolvedAt: resolved === null ? null : after(id, resolved), reopenCount: reopens } });
  }
  // Ticket 5 came by e-mail (issue 39); the others carry no channel, as tickets stored before channels: the API's.
  await conn.db!.collection('tickets').updateOne({ _id: 5 as never }, { $set: { canal: 'email' } });
  // Tags: 1 and 3 carry tag 7; 3 and 5 carry tag 9; 8 carries tag 7 (in the previous period).
  for (const [id, tagIds] of [[1, [7]], [3, [7, 9]], [5, [9]], [8, [7]]] as const) {
    await conn.db!.collection('tickets').updateOne({ _id: id as never }, { $set: { tags: [...tagIds] } });
  }
  await conn.db!.collection('ticket_status_events').insertMany([
    { _id: 'e1' as never, ticketId: 1, version: 0, from: null, to: 'open', by: 't1@example.com', at: at('2031-03-10T03:00:00Z'), source: 'create' },
    { _id: 'e2' as never, ticketId: 1, version: 1, from: 'open', to: 'resolved', by: 'agent-ana', at: at('2031-03-11T12:00:00Z'), source: 'patch' },
    { _id: 'e3' as never, ticketId: 3, version: 1, from: 'open', to: 'resolved', by: 'agent-bruno', at: after(3, 7_200), source: 'patch' },
    // Ticket 7, resolved by agent-carla and since deleted: counted nowhere.
    { _id: 'e4' as never, ticketId: 7, version: 1, from: 'open', to: 'resolved', by: 'agent-carla', at: after(7, 60), source: 'patch' },
  ]);
  await conn.db!.collection('ticket_messages').insertMany([
    // First admin replies: 3 by agent-bruno (600 s), 1 by agent-ana (3,600 s, then agent-carla), 5 by agent-ana (1,800 s).
    { _id: 1 as never, ticketId: 3, conteudo: 'Olá', remetente: 'agent-bruno', origem: 'admin', dedupeKey: 'msg:1', createdAt: after(3, 600) },
    { _id: 2 as never, ticketId: 3, conteudo: 'Oi', remetente: 't3@example.com', origem: 'usuario', dedupeKey: 'msg:2', createdAt: after(3, 900) },
    { _id: 3 as never, ticketId: 1, conteudo: 'Olá', remetente: 'agent-ana', origem: 'admin', dedupeKey: 'msg:3', createdAt: after(1, 3_600) },
    { _id: 4 as never, ticketId: 1, conteudo: 'Mais', remetente: 'agent-carla', origem: 'admin', dedupeKey: 'msg:4', createdAt: after(1, 7_200) },
    { _id: 5 as never, ticketId: 5, conteudo: 'Olá', remetente: 'agent-ana', origem: 'admin', dedupeKey: 'msg:5', createdAt: after(5, 1_800) },
    { _id: 6 as never, ticketId: 7, conteudo: 'Olá', remetente: 'agent-carla', origem: 'admin', dedupeKey: 'msg:6', createdAt: after(7, 30) },
  ]);
  // The history above is stored as releases before the agents report's copies stored it (no
  // ticketCreatedAt on messages and events, no firstAdminReplyBy on tickets); the migration
  // upgrades it, so every report below also checks the upgrade.
  migration = await migrateSupport(conn);
});
afterAll(async () => {
  await svc?.deps.mongo.conn.dropDatabase().catch(() => undefined);
  await svc?.close();
});

const get = (path: string, jwt = staffJwt) => request(svc.callback).get(path).set('Authorization', `Bearer ${jwt}`);
const period = (inicio: string, fim: string, extra = '') => `/support/relatorios/comparativo?data_inicio=${inicio}&data_fim=${fim}${extra}`;

describe('GET /support/relatorios/comparativo', () => {
  it('compares with the preceding period of equal length, counting days in São Paulo', async () => {
    const res = await get(period('2031-03-10', '2031-03-16', '&fresh=true')).expect(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        // 1 resolved, 3 closed, 5 open, 6 in progress; 4 is after the period, 7 deleted.
        atual: { totalTickets: 4, ticketsByStatus: { open: 1, in_progress: 1, resolved: 1, closed: 1 }, resolutionMetrics: { taxaResolucaoGeral: 50 }, periodo: { inicio: '2031-03-10', fim: '2031-03-16' } },
        // 3 to 9 March: 2 open (23:59:59 on the 9th), 8 resolved.
        anterior: { totalTickets: 2, ticketsByStatus: { open: 1, in_progress: 0, resolved: 1, closed: 0 }, resolutionMetrics: { taxaResolucaoGeral: 50 }, periodo: { inicio: '2031-03-03', fim: '2031-03-09' } },
        variacao: { totalTickets: 100, taxaResolucao: 0 },
        cache: { hit: false },
      },
    });
  });

  it('compares with the same period a year earlier', async () => {
    const res = await get(period('2031-03-10', '2031-03-16', '&comparar_com=mesmo_periodo_ano_anterior&fresh=true')).expect(200);
    expect(res.body.data.anterior).toEqual({ totalTickets: 1, ticketsByStatus: { open: 0, in_progress: 0, resolved: 0, closed: 1 }, resolutionMetrics: { taxaResolucaoGeral: 100 }, periodo: { inicio: '2030-03-10', fim: '2030-03-16' } });
    // 1 → 4 tickets: +300%; resolution rate 100% → 50%: −50%.
    expect(res.body.data.variacao).toEqual({ totalTickets: 300, taxaResolucao: -50 });
  });

  it('an empty period, and a change from zero', async () => {
    const empty = await get(period('2029-01-01', '2029-01-31', '&fresh=true')).expect(200);
    expect(empty.body.data.atual).toMatchObject({ totalTickets: 0, resolutionMetrics: { taxaResolucaoGeral: 0 } });
    expect(empty.body.data.variacao).toEqual({ totalTickets: 0, taxaResolucao: 0 });
    // 12 March 2030 has ticket 9 (closed); the 11th has nothing.
    const fromZero = await get(period('2030-03-12', '2030-03-12', '&fresh=true')).expect(200);
    expect(fromZero.body.data.anterior.periodo).toEqual({ inicio: '2030-03-11', fim: '2030-03-11' });
    expect(fromZero.body.data.variacao).toEqual({ totalTickets: 100, taxaResolucao: 100 });
  });

  it('defaults to the 30 days up to today', async () => {
    const res = await get('/support/relatorios/comparativo?fresh=true').expect(200);
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
    expect(res.body.data.atual.periodo.fim).toBe(today);
    expect(Date.parse(res.body.data.atual.periodo.fim) - Date.parse(res.body.data.atual.periodo.inicio)).toBe(30 * 86_400_000);
  });

  it('refuses impossible dates, a start after the end, an unknown comparison (400), and non-staff (403)', async () => {
    for (const q of ['data_inicio=2031-02-30', 'data_fim=2031-13-01', 'data_inicio=2031-03-10&data_fim=2031-03-09', 'comparar_com=ontem', 'data_inicio=10/03/2031']) {
      const res = await get(`/support/relatorios/comparativo?${q}`);
      expect({ q, status: res.status, success: res.body.success }).toEqual({ q, status: 400, success: false });
    }
    await get(period('2031-03-10', '2031-03-16'), await tokenFor('reader-1', [])).expect(403);
    await request(svc.callback).get(period('2031-03-10', '2031-03-16')).expect(401);
  });
});

describe('GET /support/relatorios/metricas-resolucao', () => {
  const metrics = async (q: string) => (await get(`/support/relatorios/metricas-resolucao?fresh=true&${q}`).expect(200)).body.data;

  it('first-response and resolution times (median, p90, mean, count) and the reopen rate, exact', async () => {
    // 10–16 March: tickets 1, 3, 5, 6. Answers 3,600 / 600 / 1,800 s; resolutions 86,400 / 7,200 s; of 1 and 3 (resolved), 3 reopened.
    expect(await metrics('data_inicio=2031-03-10&data_fim=2031-03-16')).toEqual({
      periodo: { inicio: '2031-03-10', fim: '2031-03-16' },
      primeiraResposta: { median: 1_800, p90: 3_600, mean: 2_000, count: 3 },
      resolucao: { median: 46_800, p90: 86_400, mean: 46_800, count: 2 },
      reabertura: { taxa: 50, reabertos: 1, resolvidos: 2 },
      cache: { hit: false },
    });
  });

  it('filters by category, agent and status; an empty period has nothing to measure', async () => {
    // Prêmios in March: 3 (600 s, 7,200 s, reopened), 4 (nothing), 8 (120 s, 18,000 s, reopened).
    expect(await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&main=Pr%C3%AAmios')).toMatchObject({
      primeiraResposta: { median: 360, p90: 600, mean: 360, count: 2 },
      resolucao: { median: 12_600, p90: 18_000, mean: 12_600, count: 2 },
      reabertura: { taxa: 100, reabertos: 2, resolvidos: 2 },
    });
    // agent-bruno answered ticket 3 only; agent-ana resolved ticket 1.
    expect((await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&agente=agent-bruno')).primeiraResposta).toEqual({ median: 600, p90: 600, mean: 600, count: 1 });
    expect((await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&agente=agent-ana')).resolucao).toEqual({ median: 86_400, p90: 86_400, mean: 86_400, count: 1 });
    expect((await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&status=open')).primeiraResposta).toEqual({ median: 1_800, p90: 1_800, mean: 1_800, count: 1 });
    expect(await metrics('data_inicio=2029-01-01&data_fim=2029-01-31')).toMatchObject({
      primeiraResposta: { median: null, p90: null, mean: null, count: 0 },
      resolucao: { median: null, p90: null, mean: null, count: 0 },
      reabertura: { taxa: 0, reabertos: 0, resolvidos: 0 },
    });
  });

  it('filters by tag and by issue', async () => {
    // Tag 7, 10–16 March: tickets 1 (3,600 s; 86,400 s) and 3 (600 s; 7,200 s; reopened). 8 is tagged 7 but in the previous period.
    expect(await metrics('data_inicio=2031-03-10&data_fim=2031-03-16&tag=7')).toMatchObject({
      primeiraResposta: { median: 2_100, p90: 3_600, mean: 2_100, count: 2 },
      resolucao: { median: 46_800, p90: 86_400, mean: 46_800, count: 2 },
      reabertura: { taxa: 50, reabertos: 1, resolvidos: 2 },
    });
    // Tag 9: tickets 3 (600 s; 7,200 s; reopened) and 5 (1,800 s; not resolved).
    expect(await metrics('data_inicio=2031-03-10&data_fim=2031-03-16&tag=9')).toMatchObject({
      primeiraResposta: { median: 1_200, p90: 1_800, mean: 1_200, count: 2 },
      resolucao: { median: 7_200, p90: 7_200, mean: 7_200, count: 1 },
      reabertura: { taxa: 100, reabertos: 1, resolvidos: 1 },
    });
    // A tag nobody carries: nothing to measure.
    expect(await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&tag=999')).toMatchObject({ primeiraResposta: { count: 0, median: null }, reabertura: { taxa: 0, resolvidos: 0 } });
    // Issue "Não recebi meus prêmios" in March: 3 (600 s; 7,200 s) and 8 (120 s; 18,000 s), both reopened.
    expect(await metrics('data_inicio=2031-03-01&data_fim=2031-03-31&issue=N%C3%A3o%20recebi%20meus%20pr%C3%AAmios')).toMatchObject({
      primeiraResposta: { median: 360, p90: 600, mean: 360, count: 2 },
      resolucao: { median: 12_600, p90: 18_000, mean: 12_600, count: 2 },
      reabertura: { taxa: 100, reabertos: 2, resolvidos: 2 },
    });
    // The same filters on another report: per category, and one row per ticket.
    const byTag = await get('/support/relatorios/categorias?data_inicio=2031-03-01&data_fim=2031-03-31&tag=7&fresh=true').expect(200);
    expect(byTag.body.data.categorias).toEqual([
      { main: 'Prêmios', issue: 'Não recebi meus prêmios', total: 2, abertos: 0, emAndamento: 0, resolvidos: 1, fechados: 1, taxaResolucao: 100 }, // 3, 8
      { main: 'Entrega', issue: 'Não estou recebendo a edição', total: 1, abertos: 0, emAndamento: 0, resolvidos: 1, fechados: 0, taxaResolucao: 100 }, // 1
    ]);
    const byIssue = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&issue=Outros&fresh=true').expect(200);
    expect(byIssue.body.data.linhas.map((r: { id: number }) => r.id)).toEqual([6]); // 7 is deleted
  });

  it('refuses unknown filters and bad values (400)', async () => {
    for (const q of ['status=deleted', 'tag=abc', 'tag=0', 'agent=x', 'data_inicio=2031-03-10&data_fim=2031-03-01']) {
      const res = await get(`/support/relatorios/metricas-resolucao?${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
  });
});

describe('GET /support/relatorios/dashboard', () => {
  it('counts open, unanswered, created and resolved today and this week, and finds the oldest open, on a Thursday afternoon in São Paulo', async () => {
    const original = svc.deps.now;
    svc.deps.now = () => new Date('2031-03-13T18:00:00Z'); // Thursday 13 March 2031, 15:00 in São Paulo
    try {
      const res = await get('/support/relatorios/dashboard?fresh=true').expect(200);
      expect(res.body.data).toEqual({
        abertos: 2, // 2 and 5 (4 is created after now)
        emAndamento: 1, // 6
        semResposta: 2, // 2 and 6 (5 was answered)
        criados: { hoje: 1, semana: 3 }, // today: 6; since Monday 00:00: 1 (at 00:00 exactly), 5, 6
        resolvidos: { hoje: 0, semana: 1 }, // 1, resolved on Tuesday 00:00
        // 2, created at 23:59:59 on Sunday the 9th: 3 days, 15 hours and 1 second before now.
        maisAntigoAberto: { id: 2, status: 'open', createdAt: '2031-03-10T02:59:59.000Z', idadeSegundos: 3 * 86_400 + 15 * 3_600 + 1 },
        hoje: '2031-03-13',
        semanaDesde: '2031-03-10',
        cache: { hit: false },
      });
    } finally {
      svc.deps.now = original;
    }
  });
});

describe('GET /support/relatorios/categorias', () => {
  const MARCH = [
    { main: 'Entrega', issue: 'Não estou recebendo a edição', total: 2, abertos: 1, emAndamento: 0, resolvidos: 1, fechados: 0, taxaResolucao: 50 }, // 1, 2
    { main: 'Prêmios', issue: 'Não recebi meus prêmios', total: 2, abertos: 0, emAndamento: 0, resolvidos: 1, fechados: 1, taxaResolucao: 100 }, // 3, 8
    { main: 'Cadastro', issue: 'Alterações de cadastro', total: 1, abertos: 1, emAndamento: 0, resolvidos: 0, fechados: 0, taxaResolucao: 0 }, // 5
    { main: 'Cadastro', issue: 'Outros', total: 1, abertos: 0, emAndamento: 1, resolvidos: 0, fechados: 0, taxaResolucao: 0 }, // 6 (7 is deleted)
    { main: 'Prêmios', issue: 'Prêmio com defeito', total: 1, abertos: 1, emAndamento: 0, resolvidos: 0, fechados: 0, taxaResolucao: 0 }, // 4
  ];

  it('counts per main category and issue, most tickets first; filters', async () => {
    const res = await get('/support/relatorios/categorias?data_inicio=2031-03-01&data_fim=2031-03-31&fresh=true').expect(200);
    expect(res.body.data).toEqual({ periodo: { inicio: '2031-03-01', fim: '2031-03-31' }, categorias: MARCH, cache: { hit: false } });
    const news = await get('/support/relatorios/categorias?data_inicio=2031-03-01&data_fim=2031-03-31&newsletter=The%20News&fresh=true').expect(200);
    expect(news.body.data.categorias).toEqual([
      { main: 'Entrega', issue: 'Não estou recebendo a edição', total: 2, abertos: 1, emAndamento: 0, resolvidos: 1, fechados: 0, taxaResolucao: 50 },
      { main: 'Cadastro', issue: 'Alterações de cadastro', total: 1, abertos: 1, emAndamento: 0, resolvidos: 0, fechados: 0, taxaResolucao: 0 },
    ]);
  });

  it('downloads as CSV, which parses back to the same rows', async () => {
    const res = await get('/support/relatorios/categorias?data_inicio=2031-03-01&data_fim=2031-03-31&format=csv').expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="relatorio-categorias-2031-03-01-2031-03-31.csv"');
    const [header, ...lines] = res.text.trimEnd().split('\r\n').map((l) => l.split(','));
    expect(header).toEqual(['main', 'issue', 'total', 'abertos', 'emAndamento', 'resolvidos', 'fechados', 'taxaResolucao']);
    const rows = lines.map((cells) => Object.fromEntries(header!.map((h, i) => [h, i < 2 ? cells[i] : Number(cells[i])])));
    expect(rows).toEqual(MARCH);
  });
});

describe('GET /support/relatorios/distribuicao and /serie', () => {
  // March, São Paulo time: 1 Mon 00:00, 2 Sun 9th 23:59:59, 3 Sun 16th 23:59:59, 4 Mon 17th 00:00,
  // 5 Wed 12:00, 6 Thu 12:00, 8 Wed 5th 09:00 (7 is deleted).
  const MARCH = 'data_inicio=2031-03-01&data_fim=2031-03-31&fresh=true';

  it('by hour of the day and weekday in São Paulo (every bucket), and by newsletter', async () => {
    const hours = (await get(`/support/relatorios/distribuicao?por=hora&${MARCH}`).expect(200)).body.data.distribuicao;
    expect(hours).toHaveLength(24);
    expect(hours.filter((h: { total: number }) => h.total > 0)).toEqual([{ chave: 0, total: 2 }, { chave: 9, total: 1 }, { chave: 12, total: 2 }, { chave: 23, total: 2 }]);
    const days = (await get(`/support/relatorios/distribuicao?por=dia_semana&${MARCH}`).expect(200)).body.data.distribuicao;
    expect(days).toEqual([{ chave: 1, total: 2 }, { chave: 2, total: 0 }, { chave: 3, total: 2 }, { chave: 4, total: 1 }, { chave: 5, total: 0 }, { chave: 6, total: 0 }, { chave: 7, total: 2 }]);
    const letters = (await get(`/support/relatorios/distribuicao?por=newsletter&${MARCH}`).expect(200)).body.data.distribuicao;
    expect(letters).toEqual([{ chave: 'The News', total: 3 }, { chave: null, total: 3 }, { chave: 'The Bizness', total: 1 }]);
    await get(`/support/relatorios/distribuicao?por=minuto&${MARCH}`).expect(400);
  });

  it('a time series by ISO week (from Monday, in São Paulo), day, month and year; as CSV too', async () => {
    const serie = async (g: string) => (await get(`/support/relatorios/serie?agrupamento=${g}&${MARCH}`).expect(200)).body.data.serie;
    expect(await serie('semana')).toEqual([
      { periodo: '2031-W10', criados: 2, resolvidos: 1 }, // 8 (resolved), 2
      { periodo: '2031-W11', criados: 4, resolvidos: 2 }, // 1 (resolved), 5, 6, 3 (closed)
      { periodo: '2031-W12', criados: 1, resolvidos: 0 }, // 4
    ]);
    expect((await serie('dia')).map((r: { periodo: string }) => r.periodo)).toEqual(['2031-03-05', '2031-03-09', '2031-03-10', '2031-03-12', '2031-03-13', '2031-03-16', '2031-03-17']);
    expect(await serie('hora')).toContainEqual({ periodo: '2031-03-09 23:00', criados: 1, resolvidos: 0 });
    expect(await serie('mes')).toEqual([{ periodo: '2031-03', criados: 7, resolvidos: 3 }]);
    expect(await serie('ano')).toEqual([{ periodo: '2031', criados: 7, resolvidos: 3 }]);
    const csv = await get(`/support/relatorios/serie?agrupamento=semana&format=csv&${MARCH}`).expect(200);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="relatorio-serie-semana-2031-03-01-2031-03-31.csv"');
    expect(csv.text).toBe('periodo,criados,resolvidos\r\n2031-W10,2,1\r\n2031-W11,4,2\r\n2031-W12,1,0\r\n');
  });
});

describe('GET /support/relatorios/coortes and /resumo', () => {
  it('weekly cohorts: created, and resolved within 1, 3 and 7 days', async () => {
    const res = await get('/support/relatorios/coortes?data_inicio=2031-03-01&data_fim=2031-03-31&fresh=true').expect(200);
    expect(res.body.data.coortes).toEqual([
      { semana: '2031-W10', criados: 2, em1Dia: 1, em3Dias: 1, em7Dias: 1 }, // 8 resolved in 5 h; 2 never
      { semana: '2031-W11', criados: 4, em1Dia: 2, em3Dias: 2, em7Dias: 2 }, // 1 in exactly 1 day, 3 in 2 h; 5 and 6 never
      { semana: '2031-W12', criados: 1, em1Dia: 0, em3Dias: 0, em7Dias: 0 }, // 4
    ]);
    const csv = await get('/support/relatorios/coortes?data_inicio=2031-03-01&data_fim=2031-03-31&format=csv').expect(200);
    expect(csv.text.split('\r\n')[0]).toBe('semana,criados,em1Dia,em3Dias,em7Dias');
  });

  it('summary of the last 30 days', async () => {
    const original = svc.deps.now;
    svc.deps.now = () => new Date('2031-03-20T12:00:00Z'); // the last 30 days: 18 February to 20 March
    try {
      const res = await get('/support/relatorios/resumo?fresh=true').expect(200);
      expect(res.body.data).toEqual({
        periodo: { inicio: '2031-02-18', fim: '2031-03-20' },
        totalTickets: 7, // 1, 2, 3, 4, 5, 6, 8
        ticketsByStatus: { open: 3, in_progress: 1, resolved: 2, closed: 1 },
        resolutionMetrics: { taxaResolucaoGeral: 42.86 },
        // answers 120, 600, 1,800, 3,600 s; resolutions 7,200, 18,000, 86,400 s; 3 and 8 of 1, 3, 8 reopened
        primeiraResposta: { median: 1_200, p90: 3_600, mean: 1_530, count: 4 },
        resolucao: { median: 18_000, p90: 86_400, mean: 37_200, count: 3 },
        reabertura: { taxa: 66.67, reabertos: 2, resolvidos: 3 },
        cache: { hit: false },
      });
      const prizes = await get('/support/relatorios/resumo?fresh=true&main=Pr%C3%AAmios').expect(200);
      expect(prizes.body.data).toMatchObject({ totalTickets: 3, ticketsByStatus: { open: 1, in_progress: 0, resolved: 1, closed: 1 } });
      await get('/support/relatorios/resumo?data_inicio=2031-03-01').expect(400);
    } finally {
      svc.deps.now = original;
    }
  });
});

describe('GET /support/relatorios/detalhado', () => {
  it('one row per ticket with its metrics, newest first, paginated; every row as CSV', async () => {
    const res = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&limit=3&fresh=true').expect(200);
    expect(res.body.data.linhas.map((r: { id: number }) => r.id)).toEqual([4, 3, 6]);
    expect(res.body.data.linhas[1]).toEqual({ id: 3, main: 'Prêmios', issue: 'Não recebi meus prêmios', status: 'closed', newsletter: 'The Bizness', canal: 'api', criadoEm: '2031-03-17T02:59:59.000Z', primeiraRespostaSegundos: 600, resolucaoSegundos: 7_200, reaberturas: 1 });
    expect(res.body.data.linhas[2]).toMatchObject({ id: 6, primeiraRespostaSegundos: null, resolucaoSegundos: null, reaberturas: 0 });
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 3, total: 7, totalPages: 3 });
    const last = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&limit=3&page=3&fresh=true').expect(200);
    expect(last.body.data.linhas.map((r: { id: number }) => r.id)).toEqual([8]);
    const csv = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&format=csv&fresh=true').expect(200);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,main,issue,status,newsletter,canal,criadoEm,primeiraRespostaSegundos,resolucaoSegundos,reaberturas');
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([4, 3, 6, 5, 1, 2, 8]);
    expect(lines[2]).toBe('3,Prêmios,Não recebi meus prêmios,closed,The Bizness,api,2031-03-17T02:59:59.000Z,600,7200,1');
    await get('/support/relatorios/detalhado?limit=101').expect(400);
  });

  it('canal: the tickets opened by e-mail, or by the API (those stored before channels included); the figures follow', async () => {
    const byMail = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&canal=email&fresh=true').expect(200);
    expect(byMail.body.data.linhas).toEqual([expect.objectContaining({ id: 5, canal: 'email', primeiraRespostaSegundos: 1_800 })]);
    const byApi = await get('/support/relatorios/detalhado?data_inicio=2031-03-01&data_fim=2031-03-31&canal=api&limit=100&fresh=true').expect(200);
    expect(byApi.body.data.linhas.map((r: { id: number }) => r.id)).toEqual([4, 3, 6, 1, 2, 8]);
    const metrics = await get('/support/relatorios/metricas-resolucao?data_inicio=2031-03-01&data_fim=2031-03-31&canal=email&fresh=true').expect(200);
    expect(metrics.body.data.primeiraResposta).toMatchObject({ count: 1, median: 1_800 });
    await get('/support/relatorios/detalhado?canal=console').expect(400);
    await get('/support/relatorios/detalhado?canal=fax').expect(400);
  });
});

describe('GET /support/relatorios/agentes', () => {
  it("per agent: replies, tickets resolved, first-response and resolution times; managers only", async () => {
    const manager = await tokenFor('manager-2', ['support.agent', 'support.manager']);
    const res = await get('/support/relatorios/agentes?data_inicio=2031-03-01&data_fim=2031-03-31&fresh=true', manager).expect(200);
    const none = { median: null, p90: null, mean: null, count: 0 };
    expect(res.body.data.agentes).toEqual([
      // first replies on 5 (1,800 s) and 1 (3,600 s); resolved 1, 118,800 s after it was created
      { agente: 'agent-ana', respostas: 2, ticketsResolvidos: 1, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: { median: 2_700, p90: 3_600, mean: 2_700, count: 2 }, resolucao: { median: 118_800, p90: 118_800, mean: 118_800, count: 1 } },
      { agente: 'agent-bruno', respostas: 1, ticketsResolvidos: 1, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: { median: 600, p90: 600, mean: 600, count: 1 }, resolucao: { median: 7_200, p90: 7_200, mean: 7_200, count: 1 } },
      { agente: 'agent-carla', respostas: 1, ticketsResolvidos: 0, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: none, resolucao: none },
    ]);
    const one = await get('/support/relatorios/agentes?data_inicio=2031-03-01&data_fim=2031-03-31&agente=agent-bruno&fresh=true', manager).expect(200);
    expect(one.body.data.agentes.map((a: { agente: string }) => a.agente)).toEqual(['agent-bruno']);
    const csv = await get('/support/relatorios/agentes?data_inicio=2031-03-01&data_fim=2031-03-31&format=csv&fresh=true', manager).expect(200);
    expect(csv.text.split('\r\n').slice(0, 2)).toEqual([
      'agente,respostas,ticketsResolvidos,atribuidos,atribuidosAtivos,primeiraResposta_median,primeiraResposta_p90,primeiraResposta_mean,primeiraResposta_count,resolucao_median,resolucao_p90,resolucao_mean,resolucao_count',
      'agent-ana,2,1,0,0,2700,3600,2700,2,118800,118800,118800,1',
    ]);
    // Staff without the manager permission: 403.
    await get('/support/relatorios/agentes').expect(403);
  });

  it('over the tickets other filters select: status, tag', async () => {
    const manager = await tokenFor('manager-2', ['support.agent', 'support.manager']);
    const none = { median: null, p90: null, mean: null, count: 0 };
    // Resolved now: 1 (answered by agent-ana in 3,600 s, then agent-carla; resolved by agent-ana) and 8 (no replies kept).
    const resolved = await get('/support/relatorios/agentes?data_inicio=2031-03-01&data_fim=2031-03-31&status=resolved&fresh=true', manager).expect(200);
    expect(resolved.body.data.agentes).toEqual([
      { agente: 'agent-ana', respostas: 1, ticketsResolvidos: 1, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: { median: 3_600, p90: 3_600, mean: 3_600, count: 1 }, resolucao: { median: 118_800, p90: 118_800, mean: 118_800, count: 1 } },
      { agente: 'agent-carla', respostas: 1, ticketsResolvidos: 0, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: none, resolucao: none },
    ]);
    // Tag 9: 3 (agent-bruno: answered in 600 s, resolved in 7,200 s) and 5 (agent-ana: answered in 1,800 s).
    const tagged = await get('/support/relatorios/agentes?data_inicio=2031-03-01&data_fim=2031-03-31&tag=9&fresh=true', manager).expect(200);
    expect(tagged.body.data.agentes).toEqual([
      { agente: 'agent-ana', respostas: 1, ticketsResolvidos: 0, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: { median: 1_800, p90: 1_800, mean: 1_800, count: 1 }, resolucao: none },
      { agente: 'agent-bruno', respostas: 1, ticketsResolvidos: 1, atribuidos: 0, atribuidosAtivos: 0, primeiraResposta: { median: 600, p90: 600, mean: 600, count: 1 }, resolucao: { median: 7_200, p90: 7_200, mean: 7_200, count: 1 } },
    ]);
  });
});

describe('upgrading support data stored by earlier releases (npm run cli -- migrate)', () => {
  it("copies each ticket's creation time to its messages and status events, and finds who wrote each first reply; a second run changes nothing", async () => {
    // 6 messages, 4 events; tickets 1, 3, 5 and 8 answered (8 has no messages left: nobody).
    expect(migration).toEqual({ messages: 6, events: 4, orphans: 0, firstReplies: 4 });
    const db = svc.deps.mongo.conn.db!;
    for (const name of ['ticket_messages', 'ticket_status_events']) {
      for (const r of await db.collection<{ ticketId: number; ticketCreatedAt: Date }>(name).find().toArray()) {
        expect(r.ticketCreatedAt).toEqual(at(FIXTURE.find((t) => t[0] === r.ticketId)![4]));
      }
    }
    const firstBy = await db.collection<{ _id: number; firstAdminReplyBy?: string | null }>('tickets').find({}, { sort: { _id: 1 }, projection: { firstAdminReplyBy: 1 } }).toArray();
    expect(firstBy.map((t) => [t._id, t.firstAdminReplyBy])).toEqual([[1, 'agent-ana'], [2, undefined], [3, 'agent-bruno'], [4, undefined], [5, 'agent-ana'], [6, undefined], [7, undefined], [8, null], [9, undefined]]);
    expect(await migrateSupport(svc.deps.mongo.conn)).toEqual({ messages: 0, events: 0, orphans: 0, firstReplies: 0 });
  });
});

describe('GET /support/relatorios/filtros', () => {
  it('lists categories with their issues, agents, newsletters, channels, statuses and groupings', async () => {
    const res = await get('/support/relatorios/filtros?fresh=true').expect(200);
    expect(res.body.data).toEqual({
      categorias: [
        { main: 'Cadastro', issues: ['Alterações de cadastro', 'Outros'] },
        { main: 'Entrega', issues: ['Não estou recebendo a edição'] },
        { main: 'Prêmios', issues: ['Não recebi meus prêmios', 'Prêmio com defeito'] },
      ],
      agentes: ['agent-ana', 'agent-bruno', 'agent-carla'],
      newsletters: ['The Bizness', 'The News'],
      canais: ['api', 'email'],
      status: ['open', 'in_progress', 'resolved', 'closed'],
      agrupamentos: ['hora', 'dia', 'semana', 'mes', 'ano'],
      cache: { hit: false },
    });
  });
});

describe('the cache', () => {
  it('hits on the second call with its age, misses on other parameters, expires after two hours, recomputes on fresh=true', async () => {
    let clock = Date.parse('2031-04-01T12:00:00Z');
    const original = svc.deps.reportCache;
    svc.deps.reportCache = createReportCache(svc.deps.mongo.conn, { ttlMs: 2 * 3_600_000, now: () => new Date(clock) });
    try {
      const q = period('2031-03-01', '2031-03-31');
      expect((await get(q).expect(200)).body.data.cache).toEqual({ hit: false });
      clock += 90_000;
      const hit = await get(q).expect(200);
      expect(hit.body.data.cache).toEqual({ hit: true, age: 90, expiresIn: 7_110 });
      expect(hit.body.data.atual.totalTickets).toBe(7); // all of March but the deleted 7
      // The same parameters in another order are the same report; others are not.
      expect((await get('/support/relatorios/comparativo?data_fim=2031-03-31&data_inicio=2031-03-01').expect(200)).body.data.cache.hit).toBe(true);
      expect((await get(period('2031-03-01', '2031-03-30')).expect(200)).body.data.cache).toEqual({ hit: false });
      expect((await get(`${q}&comparar_com=mesmo_periodo_ano_anterior`).expect(200)).body.data.cache).toEqual({ hit: false });
      expect((await get(`${q}&fresh=true`).expect(200)).body.data.cache).toEqual({ hit: false });
      clock += 2 * 3_600_000 + 1_000;
      expect((await get(q).expect(200)).body.data.cache).toEqual({ hit: false });
    } finally {
      svc.deps.reportCache = original;
    }
  });

  it("keeps the filters' choices five minutes, not the reports' two hours: a newsletter new today is soon choosable", async () => {
    let clock = Date.parse('2031-06-01T12:00:00Z');
    const original = svc.deps.reportCache;
    svc.deps.reportCache = createReportCache(svc.deps.mongo.conn, { ttlMs: 2 * 3_600_000, now: () => new Date(clock) });
    const newsletters = async () => (await get('/support/relatorios/filtros').expect(200)).body.data as { newsletters: string[]; cache: { hit: boolean; expiresIn?: number } };
    try {
      await get('/support/relatorios/filtros?fresh=true').expect(200);
      const tickets = svc.deps.mongo.conn.db!.collection('tickets');
      const [, main, issue, status, created] = FIXTURE[0]!;
      await tickets.insertOne({ ...(await tickets.findOne({ _id: FIXTURE[0]![0] as never }))!, _id: 900 as never, main, issue, status, createdAt: at(created), newsletter: 'The Newcomer' });
      try {
        clock += 60_000;
        const cached = await newsletters();
        expect(cached.cache).toEqual({ hit: true, age: 60, expiresIn: 240 });
        expect(cached.newsletters).not.toContain('The Newcomer');
        clock += 240_000 + 1_000;
        const computed = await newsletters();
        expect(computed.cache).toEqual({ hit: false });
        expect(computed.newsletters).toContain('The Newcomer');
      } finally {
        await tickets.deleteOne({ _id: 900 as never });
      }
    } finally {
      svc.deps.reportCache = original;
    }
  });

  it("serves a report from the process's memory for ten seconds at most: another process's recomputation reaches it after that", async () => {
    let clock = Date.parse('2031-05-01T12:00:00Z');
    const other = await startTestService(supportService, makeSupportDeps, { config: testConfig({ MONGODB_DB: db }) });
    const original = svc.deps.reportCache;
    const cacheOn = () => createReportCache(svc.deps.mongo.conn, { ttlMs: 2 * 3_600_000, now: () => new Date(clock) });
    svc.deps.reportCache = cacheOn();
    other.deps.reportCache = cacheOn();
    try {
      const q = period('2031-02-01', '2031-02-28');
      const fromOther = (query: string) => request(other.callback).get(query).set('Authorization', `Bearer ${staffJwt}`).expect(200);
      expect((await get(q).expect(200)).body.data.cache).toEqual({ hit: false });
      clock += 5_000;
      expect((await fromOther(q)).body.data.cache).toEqual({ hit: true, age: 5, expiresIn: 7_195 }); // read from MongoDB, kept
      clock += 2_000;
      expect((await get(`${q}&fresh=true`).expect(200)).body.data.cache).toEqual({ hit: false }); // recomputed in the first process at 7 s
      clock += 7_000;
      expect((await fromOther(q)).body.data.cache).toMatchObject({ hit: true, age: 14 }); // 14 s: its own copy, read at 5 s
      clock += 2_000;
      expect((await fromOther(q)).body.data.cache).toMatchObject({ hit: true, age: 9 }); // 16 s: MongoDB's copy, the one computed at 7 s
    } finally {
      svc.deps.reportCache = original;
      await other.close();
    }
  });

  it('computes a report once when it is asked for at the same time, in one process and across two', async () => {
    const other = await startTestService(supportService, makeSupportDeps, { config: testConfig({ MONGODB_DB: db }) });
    try {
      let computed = 0;
      for (const s of [svc, other]) {
        const counts = s.deps.reports.periodCounts.bind(s.deps.reports);
        s.deps.reports.periodCounts = async (from, to) => {
          computed += 1;
          await new Promise((r) => setTimeout(r, 300)); // a slow report, so the requests overlap
          return await counts(from, to);
        };
      }
      const q = period('2031-01-01', '2031-01-31');
      const answers = await Promise.all([...Array.from({ length: 4 }, () => get(q)), ...Array.from({ length: 4 }, () => request(other.callback).get(q).set('Authorization', `Bearer ${staffJwt}`))]);
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(computed).toBe(2); // one computation: the current period and the one before it
      expect(new Set(answers.map((r) => JSON.stringify({ ...r.body.data, cache: undefined }))).size).toBe(1);
    } finally {
      await other.close();
    }
  });
});
