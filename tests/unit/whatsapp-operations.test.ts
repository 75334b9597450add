/**
 * The WhatsApp operations with fakes of their ports (the integration tests whatsapp-*.test.ts
 * prove the wiring against the database, the Cloud API double and Temporal): sending once under a
 * key, who an alert reaches and how, signing up without trusting a typed address, and log-in codes.
 */
import { WhatsAppSendError, type OutboundMessage } from '../../models/infra/whatsapp';
import type { AlertFollows, AlertTarget } from '../../models/news/alert.rules';
import type { Headline } from '../../models/news/article-query';
import { terms } from '../../models/news/text.rules';
import { DEFAULT_NOTIFICATIONS, defaultPreferences, type NotificationSettings, type Preferences } from '../../models/news/preferences.rules';
import type { AlertCandidate } from '../../models/news/preferences.repo';
import type { UserDoc } from '../../models/users/user.model';
import { loginCode, loginCodeHash, signUpUserId } from '../../models/whatsapp/login-code.rules';
import type { ContactDoc, OutboundDoc } from '../../models/whatsapp/whatsapp.repo';
import { alertRecipients, sendAlerts } from '../../operations/whatsapp/alerts';
import { accountSummary, latestNews, readerOf, requestLoginCode, signUp } from '../../operations/whatsapp/conversation';
import { sendOnce, WhatsAppNotConfigured } from '../../operations/whatsapp/outbound';

const NOW = new Date('2031-03-04T15:20:00Z');

/** The outbound store and a Cloud API client: what was claimed, and what was really sent. */
function outbound(o: { refuse?: (phone: string) => WhatsAppSendError | undefined } = {}) {
  const claimed = new Map<string, { phone: string; kind: OutboundDoc['kind']; message: OutboundMessage; wamid: string | null }>();
  const sent: { phone: string; message: OutboundMessage }[] = [];
  const whatsapp = {
    claimOutbound: async (key: string, phone: string, kind: OutboundDoc['kind'], message: OutboundMessage) => {
      const doc = claimed.get(key) ?? claimed.set(key, { phone, kind, message, wamid: null }).get(key)!;
      return { _id: key, ...doc } as unknown as OutboundDoc;
    },
    markSent: async (key: string, wamid: string) => void (claimed.get(key)!.wamid = wamid),
  };
  const client = {
    phoneNumberId: '1234567890',
    send: async (phone: string, message: OutboundMessage) => {
      const refusal = o.refuse?.(phone);
      if (refusal) throw refusal;
      sent.push({ phone, message });
      return `wamid.${sent.length}`;
    },
  };
  return { whatsapp, client, claimed, sent };
}

const user = (u: Partial<UserDoc> & { _id: string }): UserDoc => ({ plan: 'starter', createdAt: NOW, updatedAt: NOW, ...u });

describe('sendOnce', () => {
  it('sends a message once under its key, however often it is asked', async () => {
    const o = outbound();
    const first = await sendOnce(o, { key: 'k1', phone: '5511999990000', kind: 'reply', message: { type: 'text', text: 'oi' } });
    const again = await sendOnce(o, { key: 'k1', phone: '5511999990000', kind: 'reply', message: { type: 'text', text: 'oi' } });
    expect(first).toEqual({ wamid: 'wamid.1', duplicate: false });
    expect(again).toEqual({ wamid: 'wamid.1', duplicate: true });
    expect(o.sent).toHaveLength(1);
  });

  it('refuses, before claiming anything, on a worker without WhatsApp credentials', async () => {
    const o = outbound();
    await expect(sendOnce({ whatsapp: o.whatsapp, client: undefined }, { key: 'k1', phone: '5511999990000', kind: 'reply', message: { type: 'text', text: 'oi' } })).rejects.toBeInstanceOf(WhatsAppNotConfigured);
    expect(o.claimed.size).toBe(0);
  });
});

describe('alerts', () => {
  const article: AlertTarget = {
    _id: 'a1',
    title: 'Petrobras anuncia dividendos',
    isBreaking: true,
    primarySector: 'energy',
    primaryTopic: 'earnings',
    entityIds: ['petrobras'],
    tickers: ['PETR4'],
    terms: terms('Petrobras anuncia dividendos'),
    baseScore: 80,
  };
  const follows = (id: string, f: Partial<AlertFollows>, settings: Partial<NotificationSettings> = {}): AlertCandidate => ({
    _id: id,
    sectors: [],
    topics: [],
    watchlistCompanies: [],
    watchlistTickers: [],
    keywords: [],
    ...f,
    settings: { ...DEFAULT_NOTIFICATIONS, whatsapp: true, ...settings },
  });
  const contacts: Pick<ContactDoc, '_id' | 'userId' | 'lastInboundAt'>[] = [
    { _id: '5511900000001', userId: 'u1', lastInboundAt: new Date(NOW.getTime() - 3_600_000) },
    { _id: '5511900000003', userId: 'u3', lastInboundAt: new Date(NOW.getTime() - 30 * 3_600_000) },
  ];

  function recipientsDeps(candidates: AlertCandidate[], target: AlertTarget | null = article, claimed: Record<string, string> = {}) {
    const asked: string[][] = [];
    return {
      asked,
      claimed,
      deps: {
        articles: { alertTarget: async () => target },
        preferences: { alertCandidates: async (_a: AlertTarget, _after: string | null, limit: number) => candidates.slice(0, limit) },
        // One channel per reader and article: the first claim wins, its own repeat is yes.
        claims: {
          claim: async (articleId: string, userId: string, channel: string) => (claimed[`${articleId}:${userId}`] ??= channel) === channel,
        },
        whatsapp: {
          phonesOf: async (ids: string[]) => {
            asked.push(ids);
            return contacts.filter((c) => ids.includes(c.userId!)) as ContactDoc[];
          },
        },
        now: () => NOW,
      },
    };
  }

  it('reaches the readers who follow the article, with free text only inside the 24-hour window', async () => {
    const { deps, asked } = recipientsDeps([
      follows('u1', { sectors: ['energy'] }),
      follows('u2', { keywords: ['vale mineração'] }), // a keyword whose terms the article lacks
      follows('u3', { keywords: ['Petrobras'] }),
    ]);
    const page = await alertRecipients(deps, { articleId: 'a1', after: null, limit: 10 });
    expect(asked).toEqual([['u1', 'u2', 'u3']]);
    expect(page).toEqual({
      title: article.title,
      recipients: [
        { userId: 'u1', phone: '5511900000001', inWindow: true },
        { userId: 'u3', phone: '5511900000003', inWindow: false },
      ],
      next: null,
    });
  });

  it('follows the one rule: minimum score, quiet hours, a linked phone, and one alert per reader across channels', async () => {
    const { deps, claimed } = recipientsDeps(
      [
        follows('u1', { sectors: ['energy'] }, { minScore: 90 }), // above the article's 80
        follows('u3', { watchlistTickers: ['PETR4'] }, { quietHours: { start: '12:00', end: '13:00' } }), // 15:20 UTC is 12:20 in São Paulo
      ],
      article,
    );
    expect((await alertRecipients(deps, { articleId: 'a1', after: null, limit: 10 })).recipients).toEqual([]);
    expect(claimed).toEqual({});

    // u1 told by push first: WhatsApp does not tell them again; u3 (no quiet hours now) is claimed for WhatsApp, and a retry still lists them.
    const again = recipientsDeps([follows('u1', { sectors: ['energy'] }), follows('u3', { keywords: ['Petrobras'] }), follows('u4', { sectors: ['energy'] })], article, { 'a1:u1': 'push' });
    const first = await alertRecipients(again.deps, { articleId: 'a1', after: null, limit: 10 });
    expect(first.recipients.map((r) => r.userId)).toEqual(['u3']); // u4 has no linked phone
    expect(again.claimed).toEqual({ 'a1:u1': 'push', 'a1:u3': 'whatsapp' });
    expect(await alertRecipients(again.deps, { articleId: 'a1', after: null, limit: 10 })).toEqual(first);
  });

  it('gives the next page after the last candidate read, and nobody for an article that is not breaking', async () => {
    const full = recipientsDeps([follows('u1', { sectors: ['energy'] }), follows('u2', {})]);
    expect((await alertRecipients(full.deps, { articleId: 'a1', after: null, limit: 2 })).next).toBe('u2');
    const calm = recipientsDeps([follows('u1', { sectors: ['energy'] })], { ...article, isBreaking: false });
    expect(await alertRecipients(calm.deps, { articleId: 'a1', after: null, limit: 2 })).toEqual({ title: article.title, recipients: [], next: null });
    expect(calm.asked).toEqual([]);
  });

  function alertDeps(o: { cap?: number; refuse?: (phone: string) => WhatsAppSendError | undefined } = {}) {
    const out = outbound(o);
    const slots = new Map<string, Set<string>>();
    const deps = {
      ...out,
      whatsapp: {
        ...out.whatsapp,
        takeAlertSlot: async (phone: string, hour: Date, cap: number, key: string) => {
          const taken = slots.get(`${phone}@${hour.toISOString()}`) ?? slots.set(`${phone}@${hour.toISOString()}`, new Set()).get(`${phone}@${hour.toISOString()}`)!;
          if (taken.has(key)) return true;
          if (taken.size >= cap) return false;
          taken.add(key);
          return true;
        },
      },
      alerts: { perHour: o.cap ?? 3, template: { name: 'breaking_news', language: 'pt_BR' } },
      now: () => NOW,
    };
    return { deps, out, slots };
  }

  it('sends text inside the window and the template outside it, once per phone however often the batch runs', async () => {
    const { deps, out } = alertDeps();
    const input = { articleId: 'a1', title: article.title, recipients: [{ phone: '5511900000001', inWindow: true }, { phone: '5511900000003', inWindow: false }] };
    expect(await sendAlerts(deps, input, new AbortController().signal)).toEqual({ sent: 2, capped: 0, refused: 0 });
    expect(await sendAlerts(deps, input, new AbortController().signal)).toEqual({ sent: 2, capped: 0, refused: 0 }); // a retried batch
    expect(out.sent).toHaveLength(2);
    const byPhone = Object.fromEntries(out.sent.map((s) => [s.phone, s.message]));
    expect(byPhone['5511900000001']).toMatchObject({ type: 'text' });
    expect(byPhone['5511900000003']).toEqual({ type: 'template', name: 'breaking_news', language: 'pt_BR', parameters: [article.title] });
  });

  it('counts a phone over its hourly cap and a refused message, and sends the rest', async () => {
    const { deps, out } = alertDeps({ cap: 0, refuse: () => undefined });
    expect(await sendAlerts(deps, { articleId: 'a1', title: 't', recipients: [{ phone: '5511900000001', inWindow: true }] }, new AbortController().signal)).toEqual({ sent: 0, capped: 1, refused: 0 });
    const refusing = alertDeps({ refuse: (phone) => (phone.endsWith('1') ? new WhatsAppSendError('not a WhatsApp number', 400, 131026, false) : undefined) });
    const res = await sendAlerts(refusing.deps, { articleId: 'a1', title: 't', recipients: [{ phone: '5511900000001', inWindow: true }, { phone: '5511900000002', inWindow: true }] }, new AbortController().signal);
    expect(res).toEqual({ sent: 1, capped: 0, refused: 1 });
    expect(refusing.out.sent.map((s) => s.phone)).toEqual(['5511900000002']);
    expect(out.sent).toEqual([]);
  });

  it('fails the batch on a throttle (to be retried), and begins no recipient once the attempt is over', async () => {
    const throttled = alertDeps({ refuse: () => new WhatsAppSendError('throttled', 429, 130429, true) });
    await expect(sendAlerts(throttled.deps, { articleId: 'a1', title: 't', recipients: [{ phone: '5511900000001', inWindow: true }] }, new AbortController().signal)).rejects.toMatchObject({ status: 429 });
    const over = alertDeps();
    const ended = new AbortController();
    ended.abort(new Error('attempt over'));
    await expect(sendAlerts(over.deps, { articleId: 'a1', title: 't', recipients: [{ phone: '5511900000001', inWindow: true }] }, ended.signal)).rejects.toThrow('attempt over');
    expect(over.slots.size).toBe(0);
    expect(over.out.sent).toEqual([]);
  });
});

describe('a conversation', () => {
  const headlines: Headline[] = [
    { _id: 'a2', title: 'Segunda', sourceName: 'Valor', publishedAt: new Date('2031-03-04T14:00:00Z'), isBreaking: false },
    { _id: 'a1', title: 'Primeira', sourceName: 'Folha', publishedAt: new Date('2031-03-04T13:00:00Z'), isBreaking: true },
  ];

  function conversationDeps(o: { users?: UserDoc[]; contacts?: ContactDoc[]; prefs?: Preferences; codeSecret?: string } = {}) {
    const out = outbound();
    const users = o.users ?? [];
    const links: { phone: string; userId: string }[] = [];
    const signedUp: { id: string; name: string; email: string }[] = [];
    const codes: { userId: string; phone: string; hash: string; expiresAt: Date }[] = [];
    const deps = {
      ...out,
      whatsapp: {
        ...out.whatsapp,
        contact: async (phone: string) => (o.contacts ?? []).find((c) => c._id === phone) ?? null,
        link: async (phone: string, userId: string) => void links.push({ phone, userId }),
        saveLoginCode: async (userId: string, phone: string, hash: string, expiresAt: Date) => void codes.push({ userId, phone, hash, expiresAt }),
      },
      users: {
        findById: async (id: string) => users.find((u) => u._id === id) ?? null,
        findByVerifiedEmail: async (email: string) => users.find((u) => u.email === email && u.emailVerifiedAt) ?? null,
        ensureWhatsAppSignUp: async (id: string, input: { name: string; email: string }) => void signedUp.push({ id, ...input }),
      },
      preferences: { get: async () => o.prefs ?? defaultPreferences(), update: async () => o.prefs ?? defaultPreferences() },
      articles: {
        feed: async () => ({ items: [{ article: { _id: 'a1' } }, { article: { _id: 'gone' } }], total: 2 }) as never,
        newestIds: async () => ['a2', 'a1'],
        headlines: async (ids: string[]) => ids.flatMap((id) => headlines.find((h) => h._id === id) ?? []),
        breaking: async () => headlines.filter((h) => h.isBreaking),
      },
      codeSecret: 'codeSecret' in o ? o.codeSecret : 'test-secret',
      now: () => NOW,
    };
    return { deps, out, links, signedUp, codes };
  }

  it('names the reader behind a phone, provisional when the account only typed its address on WhatsApp', async () => {
    const { deps } = conversationDeps({
      users: [user({ _id: 'usr_wa_1', name: 'Ana', unverifiedEmail: 'ana@example.com' }), user({ _id: 'u2', name: 'Bia', email: 'bia@example.com', emailVerifiedAt: NOW })],
      contacts: [
        { _id: '5511900000001', userId: 'usr_wa_1', profileName: 'Aninha', lastInboundAt: NOW, linkedAt: NOW, createdAt: NOW },
        { _id: '5511900000002', userId: 'u2', profileName: null, lastInboundAt: NOW, linkedAt: NOW, createdAt: NOW },
        { _id: '5511900000003', userId: null, profileName: 'Caio', lastInboundAt: NOW, linkedAt: null, createdAt: NOW },
      ],
    });
    expect(await readerOf(deps, '5511900000001')).toEqual({ userId: 'usr_wa_1', name: 'Ana', provisional: true });
    expect(await readerOf(deps, '5511900000002')).toEqual({ userId: 'u2', name: 'Bia' });
    expect(await readerOf(deps, '5511900000003')).toEqual({ userId: null, name: 'Caio' });
    expect(await readerOf(deps, '5511900000009')).toEqual({ userId: null, name: null });
  });

  it('lists the feed, or the newest articles without an account, leaving out what is gone', async () => {
    const { deps } = conversationDeps();
    expect((await latestNews(deps, 'u1')).split('\n')).toEqual(['Últimas do seu feed:', '🚨 *Primeira* (Folha, 2031-03-04 13:00 UTC)']);
    expect((await latestNews(deps, null)).split('\n')).toEqual(['Últimas notícias (envie *cadastro* para um feed do seu jeito):', '• *Segunda* (Valor, 2031-03-04 14:00 UTC)', '🚨 *Primeira* (Folha, 2031-03-04 13:00 UTC)']);
  });

  it('shows an address typed on WhatsApp as unconfirmed in the account summary', async () => {
    const { deps } = conversationDeps({ users: [user({ _id: 'usr_wa_1', name: 'Ana', unverifiedEmail: 'ana@example.com' })] });
    expect(await accountSummary(deps, { userId: 'usr_wa_1', phone: '5511900000001' })).toContain('Conta: Ana <ana@example.com> (não confirmado)');
  });

  it('signs up under an id of the phone and address, and never onto an account that proved the address', async () => {
    const taken = conversationDeps({ users: [user({ _id: 'u2', email: 'bia@example.com', emailVerifiedAt: NOW })] });
    expect(await signUp(taken.deps, { phone: '5511900000001', name: 'Intruso', email: 'bia@example.com' })).toBe('emailTaken');
    expect(taken.links).toEqual([]);
    expect(taken.signedUp).toEqual([]);
    const fresh = conversationDeps();
    expect(await signUp(fresh.deps, { phone: '5511900000001', name: 'Ana', email: 'ana@example.com' })).toBe('created');
    const id = signUpUserId('5511900000001', 'ana@example.com');
    expect(fresh.signedUp).toEqual([{ id, name: 'Ana', email: 'ana@example.com' }]);
    expect(fresh.links).toEqual([{ phone: '5511900000001', userId: id }]);
  });

  it('sends a log-in code only for a proven address, stores its hash and masks it in the stored message', async () => {
    const c = conversationDeps({ users: [user({ _id: 'u2', email: 'bia@example.com', emailVerifiedAt: NOW }), user({ _id: 'usr_wa_1', unverifiedEmail: 'ana@example.com' })] });
    await requestLoginCode(c.deps, { phone: '5511900000009', email: 'ana@example.com', key: 'code:1' });
    expect(c.out.sent).toEqual([]);
    await requestLoginCode(c.deps, { phone: '5511900000009', email: 'bia@example.com', key: 'code:2' });
    const code = loginCode('test-secret', 'code:2');
    expect(c.codes).toEqual([{ userId: 'u2', phone: '5511900000009', hash: loginCodeHash('u2', code), expiresAt: new Date(NOW.getTime() + 10 * 60_000) }]);
    expect(c.out.sent).toHaveLength(1);
    expect(JSON.stringify(c.out.sent[0]!.message)).toContain(code);
    expect(JSON.stringify(c.out.claimed.get('code:2')!.message)).not.toContain(code);
  });

  it('refuses a log-in code on a worker with no secret to derive it from', async () => {
    const c = conversationDeps({ users: [user({ _id: 'u2', email: 'bia@example.com', emailVerifiedAt: NOW })], codeSecret: undefined });
    await expect(requestLoginCode(c.deps, { phone: '5511900000009', email: 'bia@example.com', key: 'code:3' })).rejects.toBeInstanceOf(WhatsAppNotConfigured);
    expect(c.codes).toEqual([]);
  });
});
