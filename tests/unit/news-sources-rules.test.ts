/** Source settings, state and the poll rhythm (models/news/sources/source.rules.ts); linking model mentions (entity-link.rules.ts). */
import { buildDictionary } from '../../models/news/ingest.rules';
import { linkMentions, type ModelMention } from '../../models/news/entity-link.rules';
import { MAX_BACKOFF_MS, NEW_HEALTH, pollDelayMs, SourceInput, SourcePatch, sourceState } from '../../models/news/sources/source.rules';

const MIN = 60_000;

describe('the poll rhythm', () => {
  it('waits the interval after a success, whatever the random draw', () => {
    expect(pollDelayMs({ intervalMs: 5 * MIN, consecutiveFailures: 0, random: 0.99 })).toBe(5 * MIN);
  });

  it('backs off after failures: between the interval and a doubling ceiling, capped at 6 hours', () => {
    expect(pollDelayMs({ intervalMs: 5 * MIN, consecutiveFailures: 1, random: 0 })).toBe(5 * MIN);
    expect(pollDelayMs({ intervalMs: 5 * MIN, consecutiveFailures: 1, random: 0.999 })).toBeLessThan(10 * MIN);
    expect(pollDelayMs({ intervalMs: 5 * MIN, consecutiveFailures: 3, random: 0.5 })).toBe(5 * MIN + Math.floor(0.5 * 35 * MIN));
    expect(pollDelayMs({ intervalMs: 5 * MIN, consecutiveFailures: 40, random: 0.999999 })).toBeLessThanOrEqual(MAX_BACKOFF_MS);
  });

  it('never polls sooner than the site asked (Retry-After), and never waits longer than the cap for it', () => {
    expect(pollDelayMs({ intervalMs: MIN, consecutiveFailures: 1, retryAfterMs: 120_000, random: 0 })).toBe(120_000);
    expect(pollDelayMs({ intervalMs: MIN, consecutiveFailures: 1, retryAfterMs: 30 * 86_400_000, random: 0 })).toBe(MAX_BACKOFF_MS);
  });
});

describe('source settings', () => {
  it('fills the defaults and refuses what cannot be polled', () => {
    expect(SourceInput.parse({ name: ' Diário ', feedUrl: 'https://example.test/feed.xml' })).toEqual({
      name: 'Diário',
      feedUrl: 'https://example.test/feed.xml',
      tier: 2,
      language: 'pt',
      defaultSector: null,
      pollIntervalMinutes: 5,
      enabled: true,
    });
    for (const bad of [
      { name: 'x', feedUrl: 'file:///etc/passwd' },
      { name: 'x', feedUrl: '' },
      { name: 'x', feedUrl: 'não é uma URL' },
      { name: 'x', feedUrl: 'https://u:p@example.test/' },
      { name: 'x', feedUrl: 'https://example.test/', pollIntervalMinutes: 0.5 },
      { name: '', feedUrl: 'https://example.test/' },
    ]) {
      expect(SourceInput.safeParse(bad).success).toBe(false);
    }
    expect(SourcePatch.safeParse({}).success).toBe(false);
    expect(SourcePatch.parse({ enabled: false })).toEqual({ enabled: false });
  });

  it('shows a source as new, ok, backing off, failing after 5 failures in a row, or disabled', () => {
    const at = new Date();
    expect(sourceState({ enabled: true, health: NEW_HEALTH })).toBe('new');
    expect(sourceState({ enabled: true, health: { ...NEW_HEALTH, lastPollAt: at } })).toBe('ok');
    expect(sourceState({ enabled: true, health: { ...NEW_HEALTH, lastPollAt: at, consecutiveFailures: 4 } })).toBe('backing-off');
    expect(sourceState({ enabled: true, health: { ...NEW_HEALTH, lastPollAt: at, consecutiveFailures: 5 } })).toBe('failing');
    expect(sourceState({ enabled: false, health: { ...NEW_HEALTH, lastPollAt: at, consecutiveFailures: 5 } })).toBe('disabled');
  });
});

describe('linking the model mentions to the catalogue', () => {
  const dict = buildDictionary([
    { _id: 'petro', entityType: 'COMPANY', canonicalName: 'Petróleo Brasileiro S.A.', aliases: ['Petrobras'], ticker: 'PETR4' },
    { _id: 'vale', entityType: 'COMPANY', canonicalName: 'Vale S.A.', aliases: ['Vale'], ticker: 'VALE3' },
    { _id: 'bc', entityType: 'INSTITUTION', canonicalName: 'Banco Central do Brasil', aliases: ['Banco Central'], ticker: null },
  ]);
  const m = (over: Partial<ModelMention>): ModelMention => ({ name: 'x', type: 'COMPANY', ticker: null, cnpj: null, mentionCount: 1, inTitle: false, sentiment: 0, ...over });

  it('links by ticker, CNPJ, then folded name or alias, merging mentions of one entity', () => {
    const { entities, unknown } = linkMentions(
      [
        m({ name: 'Petrobras', inTitle: true, mentionCount: 2, sentiment: 0.4 }),
        m({ name: 'Petróleo Brasileiro', ticker: 'petr4', mentionCount: 1 }),
        m({ name: 'Mineradora', cnpj: '33.592.510/0001-54' }),
        m({ name: 'banco central', type: 'INSTITUTION' }),
      ],
      dict,
      new Map([['33592510000154', 'vale']]),
    );
    expect(unknown).toEqual([]);
    expect(entities.map((e) => [e.entityId, e.mentionCount, e.isInTitle])).toEqual([
      ['petro', 3, true],
      ['bc', 1, false],
      ['vale', 1, false],
    ]);
    expect(entities[0]).toMatchObject({ ticker: 'PETR4', canonicalName: 'Petróleo Brasileiro S.A.', prominenceScore: 0.8 });
  });

  it('returns names the catalogue lacks for curation, except amounts, metrics, places, events and laws', () => {
    const { entities, unknown } = linkMentions(
      [m({ name: 'Nova Mineração Ltda' }), m({ name: 'R$ 2 bilhões', type: 'MONETARY' }), m({ name: 'São Paulo', type: 'LOCATION' }), m({ name: 'XP', type: 'COMPANY' })],
      dict,
      new Map(),
    );
    expect(entities).toEqual([]);
    expect(unknown.map((u) => u.name)).toEqual(['Nova Mineração Ltda']);
  });
});
