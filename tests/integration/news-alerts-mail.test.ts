/**
 * Breaking alerts by e-mail (issue 40), on the real stack: an import publishes a breaking article;
 * newsAlertsWorkflow mails the reader who follows its sector (Mailpit catches it, with the list's
 * headers), and nobody whose minimum score is above the article's, nor an address never proven;
 * the one-click unsubscribe address (RFC 8058), posted with no cookie and no Origin as a mailbox
 * provider posts it, switches the alerts off, and the next breaking article mails nobody.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import request from 'supertest';
import { startNewsService } from '../helpers/news';
import { messageHeaders, messagesTo, waitForMessagesTo } from '../helpers/mailpit';
import { killGroup, startOwnWorker } from '../helpers/processes';
import { testConfig, tokenFor } from '../helpers/service';
import { startWebService } from '../helpers/web';

jest.setTimeout(120_000);

it('mails the follower once with the list headers, skips the demanding reader and an unproven address; one-click unsubscribe switches the alerts off', async () => {
  // A database, prefix and worker of their own: imports write articles, which other suites count.
  const run = randomUUID().slice(0, 6);
  const env = { TASK_QUEUE_PREFIX: `mail-alerts-${run}-`, MONGODB_DB: `mail_alerts_${run}` };
  const api = await startNewsService(env);
  const web = await startWebService(env);
  let worker;
  try {
    worker = await startOwnWorker(env.TASK_QUEUE_PREFIX, testConfig(env), { ...env, WORKER_QUEUES: 'platform-ops,news-ingest,news-notify' });
    const reader = async (name: string, prefs: Record<string, unknown>, settings: Record<string, unknown> = {}, proven = true) => {
      const userId = `${name}-${run}`;
      const email = `${userId}@example.com`;
      if (proven) await api.deps.users.ensure(userId, email);
      else await api.deps.users.ensureWhatsAppSignUp(`usr_wa_${userId}`, { name, email });
      await api.deps.preferences.update(proven ? userId : `usr_wa_${userId}`, { $set: { ...prefs, ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [`notificationSettings.${k}`, v])) } });
      return { userId, email };
    };
    const follower = await reader('follower', { sectors: ['ENE'] }); // e-mail alerts on by default
    const demanding = await reader('demanding', { sectors: ['ENE'] }, { breakingOnly: false, minScore: 95 });
    const unproven = await reader('unproven', { sectors: ['ENE'] }, {}, false);
    const english = await reader('english', { keywords: ['pré-sal'] }, { language: 'en' });

    const adminJwt = await tokenFor(`admin-${run}`, ['news.admin']);
    const line = (i: number, title: string) =>
      JSON.stringify({ title, summary: 'A Petrobras confirmou a descoberta <b>hoje</b>.', sourceName: 'Agência Teste', sourceUrl: `https://alerts.example/${run}/${i}`, publishedAt: new Date().toISOString(), primarySector: 'ENE', primaryTopic: 'CONTRACT', isBreaking: true, baseScore: 80 });
    const importLines = async (lines: string[]) => {
      const posted = await request(api.callback).post('/api/admin/articles/import').set('Authorization', `Bearer ${adminJwt}`).set('Content-Type', 'application/x-ndjson').send(`${lines.join('\n')}\n`).expect(202);
      const id = posted.body.data.id as string;
      await api.deps.temporal.client.workflow.getHandle(`news-import-${id}`).result();
      return { id, breakingIds: (await api.deps.imports.get(id))?.breakingIds ?? [] };
    };
    const alertsOf = (articleId: string) => api.deps.temporal.client.workflow.getHandle(`news-alerts-${articleId}`).result() as Promise<{ email: { recipients: number; sent: number; failed: number; skipped: number } }>;

    const first = await importLines([line(1, 'Petrobras anuncia descoberta no pré-sal')]);
    expect((await alertsOf(first.breakingIds[0]!)).email).toEqual({ recipients: 2, sent: 2, failed: 0, skipped: 0 });

    const [mail] = await waitForMessagesTo(follower.email);
    expect(mail!.subject).toBe('Urgente: Petrobras anuncia descoberta no pré-sal');
    expect(mail!.text).toContain(`https://alerts.example/${run}/1`);
    expect(mail!.html).toContain('A Petrobras confirmou a descoberta &#60;b&#62;hoje&#60;/b&#62;.');
    const headers = await messageHeaders(mail!.id);
    const unsubscribe = /^<(https?:\/\/[^>]+\/unsubscribe\/([^>]+))>$/.exec(headers['List-Unsubscribe']![0]!)!;
    expect(unsubscribe).not.toBeNull();
    expect(headers['List-Unsubscribe-Post']).toEqual(['List-Unsubscribe=One-Click']);
    expect(headers['List-Id']![0]).toMatch(/^"Breaking alerts" <alerts\.[^>]+>$/);
    expect(headers.Precedence).toEqual(['bulk']);
    expect(headers['Auto-Submitted']).toEqual(['auto-generated']);
    expect((await waitForMessagesTo(english.email))[0]!.subject).toBe('Breaking: Petrobras anuncia descoberta no pré-sal');
    expect(await messagesTo(demanding.email)).toEqual([]);
    expect(await messagesTo(unproven.email)).toEqual([]);

    // The provider's one-click POST: no cookie, no Origin, a form body. Twice is the same.
    const token = unsubscribe[2]!;
    const post = () => request(web.callback).post(`/unsubscribe/${token}`).set('Content-Type', 'application/x-www-form-urlencoded').send('List-Unsubscribe=One-Click');
    expect((await post().expect(200)).body).toMatchObject({ success: true, data: { list: 'alerts', unsubscribed: true } });
    expect((await post().expect(200)).body.data).toEqual({ list: 'alerts', unsubscribed: true });
    expect((await api.deps.preferences.get(follower.userId)).notificationSettings).toMatchObject({ email: false, digest: false });
    // A token altered (another list, another reader, another signature) is nobody's: 404, nothing changed.
    const [user, , mac] = token.split('~');
    for (const forged of [`${user}~digest~${mac}`, `${Buffer.from(english.userId).toString('base64url')}~alerts~${mac}`, `${user}~alerts~${'A'.repeat(22)}`, 'nonsense']) {
      expect((await request(web.callback).post(`/unsubscribe/${forged}`).send('List-Unsubscribe=One-Click').expect(404)).body).toMatchObject({ success: false });
    }
    expect((await api.deps.preferences.get(english.userId)).notificationSettings.email).toBe(true);
    // A GET (a link scanner) changes nothing: it is the page that asks first.
    await request(web.callback).get(`/unsubscribe/${token}`).expect(200);

    // The next breaking article mails the English reader only.
    const second = await importLines([line(2, 'Leilão do pré-sal é adiado')]);
    expect((await alertsOf(second.breakingIds[0]!)).email).toMatchObject({ recipients: 1, sent: 1 });
    expect(await messagesTo(follower.email)).toHaveLength(1);
    await waitForMessagesTo(english.email, { count: 2 });

    if (process.env.RECORD_HISTORY === '1') {
      const dir = path.resolve(__dirname, '../fixtures/histories');
      writeFileSync(path.join(dir, 'newsAlertsWorkflow-email.json'), `${historyToJSON(await api.deps.temporal.client.workflow.getHandle(`news-alerts-${first.breakingIds[0]}`).fetchHistory())}\n`);
    }
  } finally {
    killGroup(worker);
    await api.deps.mongo.conn.dropDatabase().catch(() => undefined);
    await web.close();
    await api.close();
  }
});
