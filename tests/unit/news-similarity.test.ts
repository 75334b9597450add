/**
 * Syndication detection (models/news/sources/similarity.rules.ts) on Portuguese fixtures: every
 * republished wire story is found and decided syndicated, no other pair of the 24 texts is, and
 * the distances that justify the thresholds are printed. Also the SimHash helpers, short texts,
 * and a pinned signature (stored signatures must stay comparable across releases).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bands,
  estimatedJaccard,
  hammingDistance,
  hashToHex,
  hexToHash,
  isSyndicated,
  MIN_WORDS,
  normaliseForSimilarity,
  signatureOf,
  SIMILAR_MAX_DISTANCE,
  simhash,
  SYNDICATION_MIN_JACCARD,
} from '../../models/news/sources/similarity.rules';

const dir = join(__dirname, '../fixtures/news-pages/similarity');
interface Pair {
  a: string;
  b: string;
}
const pairs = JSON.parse(readFileSync(join(dir, 'pairs.json'), 'utf8')) as { syndicated: Pair[]; sameCompany: Pair[]; unrelated: Pair[] };
const text = (file: string) => readFileSync(join(dir, file), 'utf8');
const files = [...new Set([...pairs.syndicated, ...pairs.sameCompany, ...pairs.unrelated].flatMap((p) => [p.a, p.b]))].sort();
const syndicatedKeys = new Set(pairs.syndicated.map((p) => [p.a, p.b].sort().join('|')));
const signature = new Map(files.map((f) => [f, signatureOf(text(f))!]));
const sim = new Map(files.map((f) => [f, simhash(text(f))!]));

/** Every pair of fixture texts, with its class. */
const allPairs = files.flatMap((a, i) =>
  files.slice(i + 1).map((b) => ({ a, b, kind: syndicatedKeys.has([a, b].sort().join('|')) ? 'syndicated' : a.split('-')[0] === b.split('-')[0] ? 'sameCompany' : 'unrelated' })),
);

describe('syndication fixtures', () => {
  it('has at least 8 pairs of each kind, texts of at least 250 words', () => {
    expect(pairs.syndicated.length).toBeGreaterThanOrEqual(8);
    expect(pairs.sameCompany.length).toBeGreaterThanOrEqual(8);
    expect(pairs.unrelated.length).toBeGreaterThanOrEqual(8);
    for (const f of files) expect(normaliseForSimilarity(text(f)).split(' ').length).toBeGreaterThanOrEqual(250);
  });

  it('decides every syndicated pair syndicated and no other pair of texts', () => {
    const wrong = allPairs.filter((p) => isSyndicated(signature.get(p.a)!, signature.get(p.b)!) !== (p.kind === 'syndicated'));
    expect(wrong).toEqual([]);
    expect(allPairs.filter((p) => p.kind === 'syndicated')).toHaveLength(pairs.syndicated.length);
  });

  it('finds every syndicated pair through a shared LSH band, and few others', () => {
    const share = (p: Pair) => signature.get(p.a)!.bands.some((band) => signature.get(p.b)!.bands.includes(band));
    expect(pairs.syndicated.filter((p) => !share(p))).toEqual([]);
    // 1 − (1 − J²)³² is ≈ 1.3% for unrelated news (J ≈ 0.02): a few candidates among 268 pairs is expected, many is a bug.
    expect(allPairs.filter((p) => p.kind !== 'syndicated' && share(p)).length).toBeLessThanOrEqual(10);
  });

  it('separates the classes by SimHash distance at SIMILAR_MAX_DISTANCE, and reports the distributions', () => {
    const report: Record<string, { hamming: [number, number]; jaccard: [number, number] }> = {};
    for (const kind of ['syndicated', 'sameCompany', 'unrelated']) {
      const ofKind = allPairs.filter((p) => p.kind === kind);
      const d = ofKind.map((p) => hammingDistance(sim.get(p.a)!, sim.get(p.b)!));
      const j = ofKind.map((p) => estimatedJaccard(signature.get(p.a)!, signature.get(p.b)!));
      report[kind] = { hamming: [Math.min(...d), Math.max(...d)], jaccard: [Math.min(...j), Math.max(...j)] };
    }
    process.stdout.write(`syndication distances (min, max) over ${allPairs.length} pairs: ${JSON.stringify(report)}\n`);
    expect(report.syndicated!.hamming[1]).toBeLessThanOrEqual(SIMILAR_MAX_DISTANCE);
    expect(Math.min(report.sameCompany!.hamming[0], report.unrelated!.hamming[0])).toBeGreaterThan(SIMILAR_MAX_DISTANCE);
    expect(report.syndicated!.jaccard[0]).toBeGreaterThanOrEqual(SYNDICATION_MIN_JACCARD + 0.2);
    expect(Math.max(report.sameCompany!.jaccard[1], report.unrelated!.jaccard[1])).toBeLessThanOrEqual(SYNDICATION_MIN_JACCARD - 0.2);
  });
});

describe('signatures', () => {
  const story = text('petrobras-a.txt');
  const paragraphs = story.split('\n\n');

  it('calls a copy keeping the first 60% of the story syndicated, and one keeping 20% not', () => {
    const cut = (share: number) => {
      const words = story.split(/\s+/);
      return words.slice(0, Math.round(words.length * share)).join(' ');
    };
    expect(isSyndicated(signatureOf(story), signatureOf(cut(0.6)))).toBe(true);
    expect(isSyndicated(signatureOf(story), signatureOf(cut(0.2)))).toBe(false);
  });

  it('ignores case, accents, punctuation and line breaks', () => {
    const plain = normaliseForSimilarity(story);
    expect(plain).toMatch(/^petrobras lucra r 35 2 bilhoes no primeiro trimestre/);
    expect(signatureOf(plain)).toEqual(signatureOf(story));
    expect(signatureOf(story.toUpperCase().replace(/\n+/g, ' '))).toEqual(signatureOf(story));
    expect(normaliseForSimilarity('1º lugar, ½ — “Ação”!')).toBe('1o lugar 1 2 acao');
  });

  it('gives no signature to texts under MIN_WORDS words, and never calls them syndicated', () => {
    const words = normaliseForSimilarity(paragraphs[1]!).split(' ');
    const brief = words.slice(0, MIN_WORDS - 1).join(' ');
    expect(signatureOf(brief)).toBeNull();
    expect(simhash(brief)).toBeNull();
    expect(signatureOf(words.slice(0, MIN_WORDS).join(' '))).not.toBeNull();
    expect(isSyndicated(null, signatureOf(story))).toBe(false);
    expect(isSyndicated(null, null)).toBe(false);
  });

  it('is stable: a stored signature stays comparable (changing the algorithm must change this test)', () => {
    const sig = signatureOf(story)!;
    expect(sig.minhash).toMatch(/^[0-9a-f]{512}$/);
    expect(sig.bands).toHaveLength(32);
    expect(sig.bands.slice(0, 3)).toEqual(['0:44beb9e5', '1:38de8084', '2:5c483b76']);
    expect(hashToHex(simhash(story)!)).toBe(PINNED_SIMHASH);
    expect(sig.minhash.slice(0, 32)).toBe(PINNED_MINHASH_START);
  });
});

describe('SimHash helpers', () => {
  it('counts differing bits', () => {
    expect(hammingDistance(0n, 0n)).toBe(0);
    expect(hammingDistance(0n, (1n << 64n) - 1n)).toBe(64);
    expect(hammingDistance(0b1011n, 0b0110n)).toBe(3);
  });

  it('round-trips hashes through 16 hex digits', () => {
    for (const h of [0n, 1n, 0xdeadbeefn, (1n << 64n) - 1n, 0x8000000000000000n]) {
      expect(hashToHex(h)).toHaveLength(16);
      expect(hexToHash(hashToHex(h))).toBe(h);
    }
    expect(() => hexToHash('xyz')).toThrow(RangeError);
    expect(() => hexToHash('1'.repeat(17))).toThrow(RangeError);
  });

  it('cuts 64 bits into maxDistance + 1 bands, so hashes within the distance share one', () => {
    const four = bands(0x0123456789abcdefn, 3);
    expect(four).toEqual(['0:cdef', '1:89ab', '2:4567', '3:123']);
    expect(bands(0n, SIMILAR_MAX_DISTANCE)).toHaveLength(SIMILAR_MAX_DISTANCE + 1);
    // Any SIMILAR_MAX_DISTANCE flipped bits leave at least one band whole (a deterministic generator picks them).
    let state = 0x9e3779b97f4a7c15n;
    const next = () => (state = BigInt.asUintN(64, state * 6364136223846793005n + 1442695040888963407n));
    for (let trial = 0; trial < 500; trial++) {
      const hash = next();
      const positions = new Set<bigint>();
      while (positions.size < SIMILAR_MAX_DISTANCE) positions.add(next() >> 58n);
      const flipped = [...positions].reduce((h, p) => h ^ (1n << p), hash);
      expect(hammingDistance(hash, flipped)).toBe(SIMILAR_MAX_DISTANCE);
      const own = new Set(bands(hash));
      expect(bands(flipped).some((b) => own.has(b))).toBe(true);
    }
  });
});

/** Of petrobras-a.txt, computed once; a change means stored signatures no longer compare with new ones. */
const PINNED_SIMHASH = '2f026cd5d60eecb0';
const PINNED_MINHASH_START = '0004a707006dab98001a1f5e000ab128';
