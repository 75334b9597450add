/**
 * The one rule for who is told (issue 40, models/news/audience.rules.ts): every reason a reader is
 * not told, the channel order, quiet hours in the reader's time zone, and the digest's filter.
 */
import type { AlertFollows, AlertTarget } from '../../models/news/alert.rules';
import { feedScore } from '../../models/news/article-query.rules';
import { ALERT_CHANNELS, inDigest, inQuietHours, matchOf, whoIsTold, type Reader } from '../../models/news/audience.rules';
import { DEFAULT_NOTIFICATIONS, defaultPreferences, NotificationSettings, type NotificationSettings as Settings } from '../../models/news/preferences.rules';
import { terms } from '../../models/news/text.rules';

const NOW = new Date('2031-03-04T15:20:00Z'); // 12:20 in São Paulo
const PETRO = '9a1b2c3d-0000-4000-8000-000000000001';

const article: AlertTarget = {
  _id: 'a1',
  title: 'Petrobras anuncia dividendos recordes',
  isBreaking: true,
  primarySector: 'ENE',
  primaryTopic: 'DIV',
  entityIds: [PETRO],
  tickers: ['PETR4'],
  terms: terms('Petrobras anuncia dividendos recordes após alta do petróleo'),
  baseScore: 70,
};

const follows = (f: Partial<AlertFollows> = {}): AlertFollows => ({ _id: 'u1', sectors: [], topics: [], watchlistCompanies: [], watchlistTickers: [], keywords: [], ...f });
const reader = (f: Partial<AlertFollows>, settings: Partial<Settings> = {}, reachable: Reader['reachable'] = { email: true, whatsapp: true, push: true }): Reader => ({
  follows: follows(f),
  settings: { ...DEFAULT_NOTIFICATIONS, ...settings },
  reachable,
});

describe('matchOf: what a reader follows in an article', () => {
  it('matches by sector, topic, watchlisted company and ticker, and keywords all of whose terms the article holds (accents folded)', () => {
    expect(matchOf(follows({ sectors: ['ENE'] }), article)).toEqual({ sector: true, topic: false, keywords: [], companies: [], tickers: [] });
    expect(matchOf(follows({ topics: ['DIV'], watchlistCompanies: [PETRO], watchlistTickers: ['PETR4', 'VALE3'] }), article)).toEqual({ sector: false, topic: true, keywords: [], companies: [PETRO], tickers: ['PETR4'] });
    expect(matchOf(follows({ keywords: ['Petróleo', 'dividendos recordes', 'Vale mineração'] }), article)).toEqual({ sector: false, topic: false, keywords: ['Petróleo', 'dividendos recordes'], companies: [], tickers: [] });
    expect(matchOf(follows({ sectors: ['FIN'], keywords: ['Vale'] }), article)).toBeNull();
  });

  it("scores as the feed does: the match is the feed's FeedMatch, so the digest ranks by the feed's relevance", () => {
    const prefs = { ...defaultPreferences(), sectors: ['ENE' as const], sectorWeights: { ENE: 2 }, keywords: ['petróleo'], keywordWeights: { petróleo: 3 }, watchlistTickers: ['PETR4'] };
    const match = matchOf({ _id: 'u1', ...prefs }, article)!;
    const { reasons } = feedScore({ ...article, publishedAt: NOW, isExclusive: false } as never, match, prefs, NOW);
    const followed = reasons.flatMap((r) => (r.type === 'sector' || r.type === 'topic' || r.type === 'keyword' || r.type === 'watchlist_company' || r.type === 'watchlist_ticker' ? [[r.type, r.value, r.points]] : []));
    expect(followed).toEqual([
      ['sector', 'ENE', 2],
      ['keyword', 'petróleo', 3],
      ['watchlist_ticker', 'PETR4', 3], // 2 points × the default watchlist multiplier 1.5
    ]);
  });
});

describe('whoIsTold: an instant alert', () => {
  it.each([
    ['an article that is not breaking', reader({ sectors: ['ENE'] }), { ...article, isBreaking: false }, { told: false, reason: 'not-breaking' }],
    ['a minimum score above the article', reader({ sectors: ['ENE'] }, { minScore: 71 }), article, { told: false, reason: 'below-min-score' }],
    ['a minimum score the article reaches exactly', reader({ sectors: ['ENE'] }, { minScore: 70, whatsapp: true }), article, { told: true, channel: 'whatsapp' }],
    ['nothing followed in it', reader({ sectors: ['FIN'], keywords: ['Vale'] }), article, { told: false, reason: 'not-followed' }],
    ['quiet hours now (12:00–13:00 in São Paulo)', reader({ sectors: ['ENE'] }, { quietHours: { start: '12:00', end: '13:00' } }), article, { told: false, reason: 'quiet-hours' }],
    ['every channel off', reader({ sectors: ['ENE'] }, { email: false }), article, { told: false, reason: 'no-channel' }],
    ['a channel on that cannot reach them (no linked phone)', reader({ sectors: ['ENE'] }, { email: false, whatsapp: true }, { whatsapp: false }), article, { told: false, reason: 'no-channel' }],
    ['e-mail on by default', reader({ topics: ['DIV'] }), article, { told: true, channel: 'email' }],
    ['push, WhatsApp and e-mail on: push first', reader({ sectors: ['ENE'] }, { push: true, whatsapp: true }), article, { told: true, channel: 'push' }],
    ['WhatsApp and e-mail on: WhatsApp first', reader({ sectors: ['ENE'] }, { whatsapp: true }), article, { told: true, channel: 'whatsapp' }],
    ['breakingOnly off changes nothing for a breaking article', reader({ sectors: ['ENE'] }, { breakingOnly: false }), article, { told: true, channel: 'email' }],
  ])('%s', (_name, r, a, expected) => {
    expect(whoIsTold(r, a, NOW)).toMatchObject(expected);
  });

  it('falls back along the channels after the one that failed for good, and considers only those asked for', () => {
    const r = reader({ sectors: ['ENE'] }, { push: true, whatsapp: true });
    expect(whoIsTold(r, article, NOW, ALERT_CHANNELS.slice(1))).toMatchObject({ told: true, channel: 'whatsapp' });
    expect(whoIsTold(r, article, NOW, ['email'])).toMatchObject({ told: true, channel: 'email' });
    expect(whoIsTold(reader({ sectors: ['ENE'] }, { whatsapp: false }), article, NOW, ['whatsapp'])).toEqual({ told: false, reason: 'no-channel' });
  });

  it('the done-when pair: a sector follower is told; a reader with breakingOnly off and minScore above the score is not', () => {
    expect(whoIsTold(reader({ sectors: ['ENE'] }), article, NOW)).toMatchObject({ told: true, channel: 'email', match: { sector: true } });
    expect(whoIsTold(reader({ sectors: ['ENE'] }, { breakingOnly: false, minScore: 90 }), article, NOW)).toEqual({ told: false, reason: 'below-min-score' });
  });
});

describe('quiet hours', () => {
  const at = (iso: string) => new Date(iso);
  it('are in the reader’s time zone, start included and end excluded, and may span midnight', () => {
    const night = { quietHours: { start: '22:00', end: '07:00' }, timeZone: 'America/Sao_Paulo' };
    expect(inQuietHours(night, at('2031-03-05T00:59:00Z'))).toBe(false); // 21:59
    expect(inQuietHours(night, at('2031-03-05T01:00:00Z'))).toBe(true); // 22:00
    expect(inQuietHours(night, at('2031-03-05T05:00:00Z'))).toBe(true); // 02:00, past midnight
    expect(inQuietHours(night, at('2031-03-05T09:59:00Z'))).toBe(true); // 06:59
    expect(inQuietHours(night, at('2031-03-05T10:00:00Z'))).toBe(false); // 07:00
    expect(inQuietHours({ ...night, quietHours: { start: '12:00', end: '13:00' } }, NOW)).toBe(true); // 12:20, within a day
    expect(inQuietHours({ ...night, quietHours: null }, at('2031-03-05T03:00:00Z'))).toBe(false);
  });

  it('follow daylight saving time where the zone has it (New York, 2031-03-09)', () => {
    const q = { quietHours: { start: '08:00', end: '09:00' }, timeZone: 'America/New_York' };
    expect(inQuietHours(q, at('2031-03-07T13:30:00Z'))).toBe(true); // EST: 08:30
    expect(inQuietHours(q, at('2031-03-10T13:30:00Z'))).toBe(false); // EDT: 09:30
    expect(inQuietHours(q, at('2031-03-10T12:30:00Z'))).toBe(true); // EDT: 08:30
  });
});

describe('inDigest: the daily digest', () => {
  it('keeps followed articles at or above the minimum score; breakingOnly keeps the breaking ones only', () => {
    const calm = { ...article, isBreaking: false };
    expect(inDigest(reader({ sectors: ['ENE'] }), calm)).toMatchObject({ sector: true });
    expect(inDigest(reader({ sectors: ['ENE'] }, { breakingOnly: true }), calm)).toBeNull();
    expect(inDigest(reader({ sectors: ['ENE'] }, { breakingOnly: true }), article)).toMatchObject({ sector: true });
    expect(inDigest(reader({ sectors: ['ENE'] }, { minScore: 80 }), article)).toBeNull();
    expect(inDigest(reader({ sectors: ['FIN'] }), article)).toBeNull();
  });
});

describe('the settings', () => {
  it('take an IANA time zone, a language, an hour and quiet hours, and refuse anything else', () => {
    const ok = { ...DEFAULT_NOTIFICATIONS, timeZone: 'Europe/Lisbon', language: 'en', digestHour: 23, quietHours: { start: '23:30', end: '06:00' } };
    expect(NotificationSettings.parse(ok)).toEqual(ok);
    for (const bad of [{ timeZone: 'Mars/Olympus' }, { timeZone: 'America/Sao_Paulo; DROP' }, { language: 'fr' }, { digestHour: 24 }, { digestHour: 7.5 }, { quietHours: { start: '24:00', end: '06:00' } }, { quietHours: { start: '06:00', end: '06:00' } }, { quietHours: { start: '6:00', end: '07:00' } }, { extra: true }]) {
      expect(NotificationSettings.safeParse({ ...DEFAULT_NOTIFICATIONS, ...bad }).success).toBe(false);
    }
  });
});
