/**
 * The daily digest (issue 40), on the real stack: articles imported; newsDigestWorkflow, run for a
 * slot, mails each reader whose digest hour that slot is in their time zone their top articles by
 * the feed's relevance (Mailpit catches them, with the digest list's headers and our return path);
 * a reader with `breakingOnly` gets the breaking ones only; a reader whose hour it is not, a reader
 * whose minimum score no article reaches, an address never proven and a suppressed address get
 * nothing; the same slot run again sends nothing twice. The schedule exists (every 15 minutes) and a
 * triggered run completes, as an operator sees it in the Temporal UI.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import request from 'supertest';
import { createReaderMailRepo } from '../../models/news/reader-mail.repo';
import { newsDigestScheduleOptions, ensureSchedule } from '../../workers/schedules';
import { TASK_QUEUES, taskQueueName, workflowIds } from '../../workflows/ids';
import type { NewsDigestResult } from '../../workflows/news/digest.workflow';
import { startNewsService } from '../helpers/news';
import { messageHeaders, messagesTo, waitForMessagesTo } from '../helpers/mailpit';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { eventually, testConfig, tokenFor } from '../helpers/service';

jest.setTimeout(120_000);

it("mails each due reader their top articles once, at their hour in their zone, and nobody else; the schedule's run completes", async () => {
  const run = randomUUID().slice(0, 6);
  const env = { TASK_QUEUE_PREFIX: `digest-${run}-`, MONGODB_DB: `digest_${run}` };
  const api = await startNewsService(env);
  let worker;
  try {
    worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-ingest,news-notify' });
    // The slot: the next whole hour, UTC (the articles imported now are in its 24 hours).
    const slot = new Date(Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000);
    const hour = slot.getUTCHours();
    const day = slot.toISOString().slice(0, 10);
    const reader = async (name: string, prefs: Record<string, unknown>, settings: Record<string, unknown>, proven = true) => {
      const userId = `${name}-${run}`;
      const email = `${userId}@example.com`;
      if (proven) await api.deps.users.ensure(userId, email);
      else await api.deps.users.ensureWhatsAppSignUp(`usr_wa_${userId}`, { name, email });
      // Instant alerts off: this test reads digests only.
      const all = { email: false, digest: true, timeZone: 'UTC', digestHour: hour, language: 'en', ...settings };
      await api.deps.preferences.update(proven ? userId : `usr_wa_${userId}`, { $set: { ...prefs, ...Object.fromEntries(Object.entries(all).map(([k, v]) => [`notificationSettings.${k}`, v])) } });
      return { userId, email };
    };
    const follower = await reader('follower', { sectors: ['ENE'], keywords: ['pré-sal'] }, {});
    const breakingOnly = await reader('breaking', { sectors: ['ENE'] }, { breakingOnly: true, language: 'pt' });
    // Kolkata is UTC+5:30: at a whole UTC hour its clock reads hh:30, no digest hour begins there.
    const elsewhere = await reader('kolkata', { sectors: ['ENE'] }, { timeZone: 'Asia/Kolkata', digestHour: (hour + 5) % 24 });
    const demanding = await reader('demanding', { sectors: ['ENE'] }, { minScore: 95 });
    const unproven = await reader('unproven', { sectors: ['ENE'] }, {}, false);
    const bounced = await reader('bounced', { sectors: ['ENE'] }, {});
    const notFollowing = await reader('other', { sectors: ['TEC'] }, {});
    await createReaderMailRepo(api.deps.mongo.conn).suppress(bounced.email, 'bounce', '5.1.1 user unknown', null, new Date());

    const adminJwt = await tokenFor(`admin-${run}`, ['news.admin']);
    const line = (i: number, title: string, isBreaking: boolean, baseScore: number) =>
      JSON.stringify({ title, summary: `Resumo <i>${i}</i>.`, sourceName: 'Agência Teste', sourceUrl: `https://digest.example/${run}/${i}`, publishedAt: new Date(Date.now() - i * 60_000).toISOString(), primarySector: 'ENE', primaryTopic: 'CONTRACT', isBreaking, baseScore });
    const posted = await request(api.callback)
      .post('/api/admin/articles/import')
      .set('Authorization', `Bearer ${adminJwt}`)
      .set('Content-Type', 'application/x-ndjson')
      .send(`${[line(1, 'Petrobras amplia produção no pré-sal', false, 70), line(2, 'Apagão atinge o Nordeste', true, 60), line(3, 'Tarifa de energia sobe 2%', false, 40)].join('\n')}\n`)
      .expect(202);
    await api.deps.temporal.client.workflow.getHandle(`news-import-${posted.body.data.id}`).result();

    const digestRun = async (suffix: string): Promise<NewsDigestResult> =>
      (await api.deps.temporal.client.workflow.execute('newsDigestWorkflow', {
        workflowId: `${workflowIds.newsDigestManual(slot.toISOString())}-${suffix}`,
        taskQueue: taskQueueName(env.TASK_QUEUE_PREFIX, TASK_QUEUES.notify),
        args: [{ slot: slot.toISOString(), pageSize: 2 }],
      })) as NewsDigestResult;

    // Pages of two: the run reads every due reader however the pages fall.
    const first = await digestRun('1');
    expect(first).toEqual({ slot: slot.toISOString(), readers: 6, sent: 2, empty: 4, skipped: 0, failed: 0 });

    const [mail] = await waitForMessagesTo(follower.email);
    expect(mail!.subject).toBe(`Your digest for ${day}: 3 articles`);
    // Ranked by the feed's relevance: sector + keyword + 0.70 (2.70), then the breaking one ((1 + 0.60) × 1.5 = 2.40), then sector + 0.40.
    const order = ['Petrobras amplia produção no pré-sal', 'Apagão atinge o Nordeste', 'Tarifa de energia sobe 2%'].map((t) => mail!.text.indexOf(t));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(mail!.html).toContain('Resumo &#60;i&#62;1&#60;/i&#62;.');
    const headers = await messageHeaders(mail!.id);
    expect(headers['List-Id']![0]).toMatch(/^"Daily digest" <digest\.[^>]+>$/);
    expect(headers['List-Unsubscribe']![0]).toMatch(/^<https?:\/\/[^>]+\/unsubscribe\/[^>]+>$/);
    expect(headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);
    // Bounces come back to the inbound mailbox, which suppresses the address.
    expect(headers['Return-Path']![0]).toBe(`<${api.deps.config.mail.readerReturnPath}>`);

    const [pt] = await waitForMessagesTo(breakingOnly.email);
    expect(pt!.subject).toBe(`Seu resumo de ${day}: 1 notícia`);
    expect(pt!.text).toContain('Apagão atinge o Nordeste');
    expect(pt!.text).not.toContain('Petrobras amplia');
    for (const nobody of [elsewhere, demanding, unproven, bounced, notFollowing]) expect(await messagesTo(nobody.email)).toEqual([]);

    // The same slot again (a retried or caught-up run): nothing is sent twice.
    expect(await digestRun('2')).toMatchObject({ sent: 0, skipped: 2 });
    expect(await messagesTo(follower.email)).toHaveLength(1);

    // The schedule, as the worker keeps it: every 15 minutes on the notify queue; a triggered run completes.
    const config = testConfig(env);
    await ensureSchedule(api.deps.temporal.client, newsDigestScheduleOptions(config));
    const schedule = api.deps.temporal.client.schedule.getHandle(`${env.TASK_QUEUE_PREFIX}news-digest`);
    try {
      const described = await schedule.describe();
      expect(described.spec.intervals).toMatchObject([{ every: 15 * 60_000 }]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'newsDigestWorkflow', taskQueue: `${env.TASK_QUEUE_PREFIX}news-notify` });
      expect(described.info.nextActionTimes.length).toBeGreaterThan(0);
      await schedule.trigger();
      const ran = await eventually(async () => ((await schedule.describe()).info.recentActions.length > 0 ? 'started' : 'waiting'), 'started');
      expect(ran).toBe('started');
      const [action] = (await schedule.describe()).info.recentActions;
      const result = (await api.deps.temporal.client.workflow.getHandle(action!.action.workflow.workflowId).result()) as NewsDigestResult;
      expect(new Date(result.slot).getTime() % (15 * 60_000)).toBe(0);
    } finally {
      await schedule.delete();
    }

    if (process.env.RECORD_HISTORY === '1') {
      const dir = path.resolve(__dirname, '../fixtures/histories');
      writeFileSync(path.join(dir, 'newsDigestWorkflow.json'), `${historyToJSON(await api.deps.temporal.client.workflow.getHandle(`${workflowIds.newsDigestManual(slot.toISOString())}-1`).fetchHistory())}\n`);
    }
  } finally {
    killGroup(worker);
    await api.deps.mongo.conn.dropDatabase().catch(() => undefined);
    await api.close();
  }
});
