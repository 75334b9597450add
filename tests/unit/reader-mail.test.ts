/**
 * Readers' mail (issue 40): the alert's text and HTML (escaped, in the reader's language), the
 * list headers, unsubscribe tokens (ours only, per reader and list), and sending a batch once per
 * reader however often it is retried (operations/news/alerts sendMailAlerts, with fakes).
 */
import { dependencyUnavailable } from '../../models/errors';
import type { MailMessage } from '../../models/infra/mail';
import { readerMessageId, readUnsubscribeToken, unsubscribeToken } from '../../models/news/reader-mail-ids';
import type { ReaderMailDoc } from '../../models/news/reader-mail.repo';
import { composeAlertMail, listHeaders } from '../../models/news/reader-mail.rules';
import { sendMailAlerts } from '../../operations/news/alerts';

const SECRET = 'a-web-secret-of-at-least-thirty-two-characters';
const ARTICLE = { title: 'Petrobras <script>alert(1)</script>\r\nBcc: victim@example.com', summary: 'Lucro & "dividendos"', sourceName: 'Agência <Teste>', url: 'https://example.com/a?x=1&y="2"', publishedAt: new Date('2031-03-04T15:20:00Z') };
const LINKS = { unsubscribeUrl: 'https://app.example.com/unsubscribe/t', preferencesUrl: 'https://app.example.com/account/preferences' };

describe('the alert mail', () => {
  it('escapes everything the article holds in the HTML, and flattens the subject (no header injection)', () => {
    const mail = composeAlertMail(ARTICLE, 'pt', LINKS);
    expect(mail.subject).toBe('Urgente: Petrobras <script>alert(1)</script> Bcc: victim@example.com');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('Petrobras &#60;script&#62;alert(1)&#60;/script&#62;');
    expect(mail.html).toContain('href="https://example.com/a?x=1&#38;y=&#34;2&#34;"');
    expect(mail.html).toContain('Agência &#60;Teste&#62;');
    expect(mail.text).toContain('Fonte: Agência <Teste> — 04/03/2031, 12:20');
    expect(mail.text).toContain(`Parar os alertas por e-mail: ${LINKS.unsubscribeUrl}`);
  });

  it('speaks the reader’s language', () => {
    const mail = composeAlertMail({ ...ARTICLE, title: 'Selic sobe', summary: null }, 'en', LINKS);
    expect(mail.subject).toBe('Breaking: Selic sobe');
    expect(mail.text).toContain('Stop alerts by e-mail: https://app.example.com/unsubscribe/t');
    expect(mail.html).toContain('<html lang="en">');
  });

  it('carries the list headers bulk senders are asked for', () => {
    expect(listHeaders({ list: 'alerts', domain: 'news.example.com', unsubscribeUrl: LINKS.unsubscribeUrl })).toEqual({
      'List-Id': '"Breaking alerts" <alerts.news.example.com>',
      'List-Unsubscribe': '<https://app.example.com/unsubscribe/t>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      Precedence: 'bulk',
      'Auto-Submitted': 'auto-generated',
      'Feedback-ID': 'alerts:news:newsletter-platform',
    });
  });
});

describe('unsubscribe tokens', () => {
  it('name the reader and list we signed, and nothing altered or signed with another key', () => {
    const token = unsubscribeToken(SECRET, 'usr_42', 'alerts');
    expect(token).toMatch(/^[A-Za-z0-9_-]+~alerts~[A-Za-z0-9_-]{22}$/);
    expect(readUnsubscribeToken(SECRET, token)).toEqual({ userId: 'usr_42', list: 'alerts' });
    const [user, , mac] = token.split('~');
    expect(readUnsubscribeToken(SECRET, `${user}~digest~${mac}`)).toBeNull();
    expect(readUnsubscribeToken(SECRET, `${Buffer.from('usr_43').toString('base64url')}~alerts~${mac}`)).toBeNull();
    expect(readUnsubscribeToken(`${SECRET}x`, token)).toBeNull();
    for (const junk of ['', '~~', 'a~b~c', `${user}~alerts~${mac}~x`, `${user}=~alerts~${mac}`, 'x'.repeat(500)]) expect(readUnsubscribeToken(SECRET, junk)).toBeNull();
  });

  it('give each mail a stable Message-ID (a retry sends the same)', () => {
    expect(readerMessageId(SECRET, 'alert:a1:u1', 'news.example.com')).toBe(readerMessageId(SECRET, 'alert:a1:u1', 'news.example.com'));
    expect(readerMessageId(SECRET, 'alert:a1:u1', 'news.example.com')).not.toBe(readerMessageId(SECRET, 'alert:a1:u2', 'news.example.com'));
    expect(readerMessageId(SECRET, 'alert:a1:u1', 'news.example.com')).toMatch(/^<n\.[A-Za-z0-9_-]{24}@news\.example\.com>$/);
  });
});

describe('sendMailAlerts', () => {
  function deps(send: (m: MailMessage) => Promise<{ response: string }>) {
    const records = new Map<string, ReaderMailDoc>();
    const sent: MailMessage[] = [];
    return {
      sent,
      records,
      deps: {
        articles: { alertArticle: async () => ({ title: 'Selic sobe', summary: null, sourceName: 'Agência', sourceUrl: 'https://example.com/selic', publishedAt: new Date('2031-03-04T15:20:00Z') }) },
        readerMail: {
          begin: async (input: Pick<ReaderMailDoc, '_id' | 'kind' | 'userId' | 'to' | 'messageId'>, now: Date) => {
            const found = records.get(input._id);
            if (found) return found.state === 'sending' ? Object.assign(found, { attempts: found.attempts + 1 }) : null;
            const doc: ReaderMailDoc = { ...input, state: 'sending', attempts: 1, response: null, createdAt: now, updatedAt: now, expiresAt: now };
            records.set(input._id, doc);
            return doc;
          },
          end: async (id: string, state: 'sent' | 'failed', response: string) => void Object.assign(records.get(id)!, { state, response }),
        },
        mailer: {
          send: async (m: MailMessage) => {
            const answer = await send(m);
            sent.push(m);
            return answer;
          },
        },
        mail: { from: 'Alerts <alerts@news.example.com>', domain: 'news.example.com', webUrl: 'https://app.example.com', secret: SECRET },
        now: () => new Date('2031-03-04T15:21:00Z'),
      },
    };
  }
  const recipients = [
    { userId: 'u1', to: 'u1@example.com', language: 'pt' as const },
    { userId: 'u2', to: 'u2@example.com', language: 'en' as const },
    { userId: 'u3', to: 'u3@example.com', language: 'pt' as const },
  ];

  it('sends once per reader: a retried batch skips what was sent, a refused mail ends failed, a server away fails the batch', async () => {
    let away = true;
    const t = deps(async (m) => {
      if (m.to === 'u3@example.com' && away) throw dependencyUnavailable('mail', new Error('ECONNREFUSED'));
      if (m.to === 'u2@example.com') throw new Error('the mail server refused the message: 550 no such user');
      return { response: '250 OK' };
    });
    await expect(sendMailAlerts(t.deps, { articleId: 'a1', recipients }, new AbortController().signal)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    away = false;
    expect(await sendMailAlerts(t.deps, { articleId: 'a1', recipients }, new AbortController().signal)).toEqual({ sent: 1, failed: 0, skipped: 2 });
    expect(t.sent.map((m) => m.to)).toEqual(['u1@example.com', 'u3@example.com']);
    expect([...t.records.values()].map((r) => [r.userId, r.state, r.attempts])).toEqual([
      ['u1', 'sent', 1],
      ['u2', 'failed', 1],
      ['u3', 'sent', 2],
    ]);
    // The mail whose first attempt died is sent with the Message-ID it was given then.
    expect(t.sent[1]!.messageId).toBe(t.records.get('alert:a1:u3')!.messageId);
    expect(t.sent[0]!.headers).toMatchObject({ 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    expect(readUnsubscribeToken(SECRET, /\/unsubscribe\/([^>]+)>$/.exec(t.sent[0]!.headers!['List-Unsubscribe']!)![1]!)).toEqual({ userId: 'u1', list: 'alerts' });
  });

  it('begins no reader once the attempt is over', async () => {
    const t = deps(async () => ({ response: '250 OK' }));
    const over = new AbortController();
    over.abort(new Error('attempt over'));
    await expect(sendMailAlerts(t.deps, { articleId: 'a1', recipients }, over.signal)).rejects.toThrow('attempt over');
    expect(t.sent).toEqual([]);
  });
});
