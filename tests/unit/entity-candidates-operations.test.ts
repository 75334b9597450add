/**
 * The entity curation queue, the use cases, with fakes of their dependencies (the stack test in
 * tests/integration/news-sources.test.ts proves the wiring): accepting creates the entity under
 * an id derived from the candidate, once, then decides the candidate; a decided one is a conflict.
 */
import { AppError } from '../../models/errors';
import type { EntityCandidateDoc } from '../../models/news/entity-candidate.repo';
import type { EntityDoc } from '../../models/news/entity.model';
import { acceptCandidate, dismissCandidate, entityIdForCandidate, type CandidateDeps } from '../../operations/news/entity-candidates';

const T0 = new Date('2026-11-25T12:00:00Z');
const duplicateKey = () => Object.assign(new Error('E11000 duplicate key error'), { code: 11000 });

function fakes(o: { state?: EntityCandidateDoc['state']; insert?: () => Promise<void> } = {}) {
  const candidate = { _id: 'banco xyz', name: 'Banco XYZ', entityType: 'company', ticker: 'BXYZ3', cnpj: null, mentions: 3, articleIds: [], state: o.state ?? 'open', entityId: null, firstSeenAt: T0, lastSeenAt: T0 } as unknown as EntityCandidateDoc;
  const inserted: EntityDoc[] = [];
  const deps: CandidateDeps = {
    entityCandidates: {
      get: async (key: string) => (key === candidate._id ? candidate : null),
      async decide(key: string, state: 'accepted' | 'dismissed', by: string, entityId: string | null) {
        if (key !== candidate._id || candidate.state !== 'open') return null;
        Object.assign(candidate, { state, entityId, decidedBy: by });
        return candidate;
      },
    } as unknown as CandidateDeps['entityCandidates'],
    entities: {
      async insertMany(docs: EntityDoc[]) {
        await (o.insert ?? (async () => undefined))();
        inserted.push(...docs);
      },
    },
    now: () => T0,
  };
  return { deps, candidate, inserted };
}

it('accepting creates the entity under the candidate’s id, then decides the candidate', async () => {
  const f = fakes();
  const accepted = await acceptCandidate(f.deps, 'banco xyz', 'admin-1');
  expect(accepted).toMatchObject({ state: 'accepted', entityId: entityIdForCandidate('banco xyz') });
  expect(f.inserted).toEqual([{ _id: entityIdForCandidate('banco xyz'), entityType: 'company', canonicalName: 'Banco XYZ', aliases: [], ticker: 'BXYZ3', cnpj: null, nameKeys: ['banco xyz'], createdAt: T0 }]);
});

it('an accept retried after the entity was created decides the candidate without a second entity', async () => {
  const f = fakes({ insert: async () => Promise.reject(duplicateKey()) });
  await expect(acceptCandidate(f.deps, 'banco xyz', 'admin-1')).resolves.toMatchObject({ state: 'accepted' });
});

it('another failure of the catalogue leaves the candidate open', async () => {
  const f = fakes({ insert: async () => Promise.reject(new Error('MongoDB is down')) });
  await expect(acceptCandidate(f.deps, 'banco xyz', 'admin-1')).rejects.toThrow('MongoDB is down');
  expect(f.candidate.state).toBe('open');
});

it('a decided candidate is a conflict, an unknown one not found', async () => {
  const f = fakes({ state: 'dismissed' });
  await expect(acceptCandidate(f.deps, 'banco xyz', 'admin-1')).rejects.toMatchObject({ code: 'CONFLICT' });
  await expect(dismissCandidate(f.deps, 'banco xyz', 'admin-1')).rejects.toMatchObject({ code: 'CONFLICT' });
  await expect(acceptCandidate(f.deps, 'nobody', 'admin-1')).rejects.toBeInstanceOf(AppError);
  await expect(dismissCandidate(f.deps, 'nobody', 'admin-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(f.inserted).toEqual([]);
});

it('dismissing decides the candidate', async () => {
  const f = fakes();
  await expect(dismissCandidate(f.deps, 'banco xyz', 'admin-1')).resolves.toMatchObject({ state: 'dismissed', entityId: null });
});
