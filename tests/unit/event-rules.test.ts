/** The news event log's rules (models/events/event.rules.ts): types, filters, presentation by plan, the watermark. */
import { randomUUID } from 'node:crypto';
import { EVENT_TYPES, eventKeyOf, eventMatches, eventTypeOf, modulesKey, presentEvent, snapshotOf, watermark, type EventFilter } from '../../models/events/event.rules';
import { parseInclude } from '../../models/news/article.rules';
import { eventArticle, eventAt } from '../helpers/events';

describe('event types and keys', () => {
  it('is article.breaking for a breaking article and article.published otherwise', () => {
    expect(EVENT_TYPES).toEqual(['article.published', 'article.breaking']);
    expect(eventTypeOf({ isBreaking: true })).toBe('article.breaking');
    expect(eventTypeOf({ isBreaking: false })).toBe('article.published');
    expect(eventKeyOf('abc')).toBe('article:abc');
  });

  it('keeps in the snapshot what presentation and filters need, and not the search copies', () => {
    const a = eventArticle({ tickers: ['PETR4'], entityIds: ['e1'] });
    const snap = snapshotOf(a);
    expect(snap).toMatchObject({ _id: a._id, title: a.title, primarySector: 'ENE', primaryTopic: 'DIV', tickers: ['PETR4'], entityIds: ['e1'], modules: a.modules });
    expect(snap).not.toHaveProperty('search');
    expect(snap).not.toHaveProperty('terms');
    expect(snap).not.toHaveProperty('sourceUrl');
  });
});

describe('eventMatches', () => {
  const petro = randomUUID();
  const vale = randomUUID();
  const energy = eventAt(1, { primarySector: 'ENE', primaryTopic: 'DIV', tickers: ['PETR4'], entityIds: [petro] });
  const mining = eventAt(2, { primarySector: 'MAT', primaryTopic: 'EARN', tickers: ['VALE3'], entityIds: [vale], isBreaking: true });
  const none: EventFilter = { breakingOnly: false };
  const matching = (f: EventFilter) => [energy, mining].filter((e) => eventMatches(e, f)).map((e) => e._id);

  it('matches everything without a filter, and empty lists filter nothing', () => {
    expect(matching(none)).toEqual([1, 2]);
    expect(matching({ sectors: [], topics: [], tickers: [], entityIds: [], breakingOnly: false })).toEqual([1, 2]);
  });

  it('is OR within a kind', () => {
    expect(matching({ sectors: ['ENE'], breakingOnly: false })).toEqual([1]);
    expect(matching({ sectors: ['ENE', 'MAT'], breakingOnly: false })).toEqual([1, 2]);
    expect(matching({ tickers: ['VALE3', 'ITUB4'], breakingOnly: false })).toEqual([2]);
    expect(matching({ entityIds: [petro, vale], breakingOnly: false })).toEqual([1, 2]);
  });

  it('is AND across kinds', () => {
    expect(matching({ sectors: ['ENE', 'MAT'], topics: ['EARN'], breakingOnly: false })).toEqual([2]);
    expect(matching({ sectors: ['ENE'], tickers: ['VALE3'], breakingOnly: false })).toEqual([]);
    expect(matching({ topics: ['DIV'], entityIds: [petro], tickers: ['PETR4'], breakingOnly: false })).toEqual([1]);
  });

  it('keeps breaking events only when breakingOnly', () => {
    expect(matching({ breakingOnly: true })).toEqual([2]);
    expect(matching({ sectors: ['ENE'], breakingOnly: true })).toEqual([]);
  });
});

describe('presentEvent', () => {
  const event = eventAt(7, { isBreaking: true });
  const modulesOf = (raw: string | undefined, plan: 'starter' | 'pro') => {
    const parsed = parseInclude(raw, plan);
    if ('problem' in parsed) throw new Error('refused');
    return parsed.modules;
  };

  it('sends the seq, type, time and the base fields of the article, and no module unless asked', () => {
    const shown = presentEvent(event, []);
    expect(shown).toMatchObject({ seq: 7, type: 'article.breaking', timestamp: event.at.toISOString(), article: { id: event.article._id, title: event.article.title, isBreaking: true } });
    expect(shown.article).not.toHaveProperty('sentimentScore');
    expect(shown.article).not.toHaveProperty('scoring');
  });

  it('adds the modules the plan allows, as the article lists do', () => {
    const pro = presentEvent(event, modulesOf('sentiment,scoring', 'pro'));
    expect(pro.article).toMatchObject({ sentimentScore: 0.5, sentimentLabel: 'POSITIVO', scoring: { overall: 60 } });
    expect(parseInclude('sentiment', 'starter')).toMatchObject({ problem: { kind: 'plan', module: 'sentiment' } });
    const starter = presentEvent(event, modulesOf('classification', 'starter'));
    expect(starter.article).toHaveProperty('classification');
    expect(starter.article).not.toHaveProperty('sentimentScore');
    expect(presentEvent(event, modulesOf('translations', 'starter')).article.translations).toBeNull();
  });

  it('keys module sets in any order alike', () => {
    expect(modulesKey(['scoring', 'sentiment'])).toBe(modulesKey(['sentiment', 'scoring']));
    expect(modulesKey([])).toBe('');
  });
});

describe('watermark', () => {
  const GAP = 5_000;
  const seen = (entries: [number, number][]) => new Map(entries);

  it('moves over every seq read in order', () => {
    expect(watermark(0, seen([[1, 0], [2, 0], [3, 0]]), 0, GAP)).toBe(3);
    expect(watermark(10, seen([]), 0, GAP)).toBe(10);
  });

  it('stops below a hole until the seq above it was read a gap wait ago', () => {
    const s = seen([[1, 1_000], [3, 1_000], [4, 1_000]]);
    expect(watermark(0, s, 1_000, GAP)).toBe(1);
    expect(watermark(0, s, 5_999, GAP)).toBe(1);
    expect(watermark(0, s, 6_000, GAP)).toBe(4);
  });

  it('takes a late insert into the hole at once, and stops at the next hole', () => {
    // 2 was reserved before 3 but committed after it: read on the next poll.
    const s = seen([[1, 0], [3, 0], [2, 100], [5, 100]]);
    expect(watermark(0, s, 200, GAP)).toBe(3);
    expect(watermark(0, s, 5_100, GAP)).toBe(5);
  });

  it('passes several holes at once once the seq above them is old enough', () => {
    expect(watermark(0, seen([[4, 0], [9, 0]]), GAP, GAP)).toBe(9);
  });

  it('ignores seqs at or below the mark', () => {
    expect(watermark(5, seen([[3, 0], [6, 0]]), 0, GAP)).toBe(6);
  });
});
