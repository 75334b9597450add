/**
 * The daily digest's rules (models/news/digest.rules.ts) and mail (reader-mail.rules
 * composeDigestMail): which hours are due at a slot in each zone (half-hour and 45-minute zones,
 * daylight saving), the day a digest belongs to, which articles a reader's digest lists and in
 * which order, and a hostile title in the mail.
 */
import { DIGEST_MAX_ARTICLES, digestDay, digestKey, digestOf, dueHours, slotOf, type DigestCandidate } from '../../models/news/digest.rules';
import { defaultPreferences, type Preferences } from '../../models/news/preferences.rules';
import { composeDigestMail } from '../../models/news/reader-mail.rules';
import { terms } from '../../models/news/text.rules';

describe('slots and due hours', () => {
  it('floors an instant to its quarter hour', () => {
    expect(slotOf(new Date('2031-03-04T10:14:59.999Z')).toISOString()).toBe('2031-03-04T10:00:00.000Z');
    expect(slotOf(new Date('2031-03-04T10:15:00.000Z')).toISOString()).toBe('2031-03-04T10:15:00.000Z');
  });

  it("makes due, in each zone, the hour whose first quarter the slot is, and no hour where the clock is past it", () => {
    const zones = ['UTC', 'America/Sao_Paulo', 'Asia/Kolkata', 'Asia/Kathmandu'];
    // 10:00 UTC: 10:00 UTC and 07:00 São Paulo begin; Kolkata reads 15:30 and Kathmandu 15:45.
    expect(dueHours(new Date('2031-03-04T10:00:00Z'), zones)).toEqual([
      { timeZone: 'UTC', hour: 10 },
      { timeZone: 'America/Sao_Paulo', hour: 7 },
    ]);
    // 10:30 UTC: Kolkata's 16:00 begins.
    expect(dueHours(new Date('2031-03-04T10:30:00Z'), zones)).toEqual([{ timeZone: 'Asia/Kolkata', hour: 16 }]);
    // 10:15 UTC: Kathmandu's 16:00 begins.
    expect(dueHours(new Date('2031-03-04T10:15:00Z'), zones)).toEqual([{ timeZone: 'Asia/Kathmandu', hour: 16 }]);
    expect(dueHours(new Date('2031-03-04T10:45:00Z'), zones)).toEqual([]);
  });

  it('makes each hour of a local day due exactly once across the day, in every zone, daylight saving included', () => {
    for (const [zone, start] of [
      ['America/New_York', '2031-03-09T00:00:00Z'], // spring forward on 9 March 2031: 02:00 never happens
      ['America/New_York', '2031-11-02T00:00:00Z'], // fall back on 2 November 2031: 01:00 happens twice
      ['Asia/Kolkata', '2031-03-04T00:00:00Z'],
    ] as const) {
      const seen = new Map<string, number>();
      for (let t = new Date(start).getTime(); t < new Date(start).getTime() + 48 * 3_600_000; t += 15 * 60_000) {
        const slot = new Date(t);
        for (const d of dueHours(slot, [zone])) {
          const key = `${digestDay(slot, zone)} ${d.hour}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }
      // The repeated hour is due twice (the day's record keeps it one mail); every other once.
      const counts = [...seen.values()];
      expect(counts.filter((n) => n > 2)).toEqual([]);
      expect(counts.filter((n) => n === 2).length).toBeLessThanOrEqual(1);
    }
  });

  it("belongs to the reader's local day, which names its record", () => {
    const slot = new Date('2031-03-05T01:00:00Z');
    expect(digestDay(slot, 'UTC')).toBe('2031-03-05');
    expect(digestDay(slot, 'America/Sao_Paulo')).toBe('2031-03-04');
    expect(digestKey('u1', '2031-03-04')).toBe('digest:u1:2031-03-04');
  });
});

const SLOT = new Date('2031-03-04T10:00:00Z');
const candidate = (id: string, c: Partial<DigestCandidate> = {}): DigestCandidate => ({
  _id: id,
  title: `Article ${id}`,
  summary: null,
  sourceName: 'Agência',
  sourceUrl: `https://news.example/${id}`,
  publishedAt: new Date(SLOT.getTime() - 3_600_000),
  baseScore: 50,
  primarySector: 'ENE',
  primaryTopic: 'CONTRACT',
  isBreaking: false,
  isExclusive: false,
  entityIds: [],
  tickers: [],
  terms: terms(`Article ${id}`),
  ...c,
});
const prefs = (p: Partial<Preferences> = {}, settings: Partial<Preferences['notificationSettings']> = {}): Preferences & { _id: string } => {
  const d = defaultPreferences();
  return { ...d, ...p, _id: 'u1', notificationSettings: { ...d.notificationSettings, digest: true, ...settings } };
};

describe("a reader's digest", () => {
  it("lists followed articles at or above the minimum score, best first by the feed's relevance", () => {
    const items = digestOf(prefs({ sectors: ['ENE'], watchlistTickers: ['PETR4'] }, { minScore: 30 }), [
      candidate('low', { baseScore: 20 }),
      candidate('plain', { baseScore: 60 }),
      candidate('ticker', { baseScore: 40, tickers: ['PETR4'] }),
      candidate('unfollowed', { primarySector: 'TEC', baseScore: 90 }),
      candidate('old-breaking', { isBreaking: true, baseScore: 60, publishedAt: new Date(SLOT.getTime() - 20 * 3_600_000) }),
    ], SLOT);
    expect(items.map((i) => i.article._id)).toEqual(['ticker', 'plain', 'old-breaking']);
    expect(items[0]!.score).toBeGreaterThan(items[1]!.score);
  });

  it('keeps the breaking ones only when the reader asked, and at most ten', () => {
    const many = Array.from({ length: 15 }, (_, i) => candidate(`a${i}`, { isBreaking: i % 3 === 0 }));
    expect(digestOf(prefs({ sectors: ['ENE'] }), many, SLOT)).toHaveLength(DIGEST_MAX_ARTICLES);
    // Equal scores and times: by id.
    expect(digestOf(prefs({ sectors: ['ENE'] }, { breakingOnly: true }), many, SLOT).map((i) => i.article._id)).toEqual(['a0', 'a12', 'a3', 'a6', 'a9']);
    expect(digestOf(prefs({ sectors: ['TEC'] }), many, SLOT)).toEqual([]);
  });
});

describe('the digest mail', () => {
  const links = { unsubscribeUrl: 'https://app.example/unsubscribe/t', preferencesUrl: 'https://app.example/account/preferences' };

  it("lists the articles in order, in the reader's language, with the way out", () => {
    const mail = composeDigestMail(
      [
        { title: 'Um', summary: 'Resumo um', sourceName: 'A', url: 'https://n.example/1', isBreaking: true },
        { title: 'Dois', summary: null, sourceName: 'B', url: 'https://n.example/2', isBreaking: false },
      ],
      '2031-03-04',
      'pt',
      links,
    );
    expect(mail.subject).toBe('Seu resumo de 2031-03-04: 2 notícias');
    expect(mail.text.indexOf('1. [Urgente] Um')).toBeLessThan(mail.text.indexOf('2. Dois'));
    expect(mail.text).toContain('Parar o resumo diário: https://app.example/unsubscribe/t');
    expect(composeDigestMail([{ title: 'One', summary: null, sourceName: 'A', url: 'https://n.example/1', isBreaking: false }], '2031-03-04', 'en', links).subject).toBe('Your digest for 2031-03-04: 1 article');
  });

  it('escapes what the articles hold in the HTML', () => {
    const mail = composeDigestMail([{ title: '<script>alert(1)</script>', summary: '"><img src=x onerror=alert(1)>', sourceName: '<b>S</b>', url: 'https://n.example/?a="><x', isBreaking: false }], '2031-03-04', 'en', links);
    expect(mail.html).not.toMatch(/<script|<img|<b>S/);
    expect(mail.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(mail.html).not.toContain('href="https://n.example/?a="><x"');
  });
});
