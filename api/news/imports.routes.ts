/**
 * Importing real articles (issue 5): JSON lines posted by an administrator (JWT permission
 * news.admin), streamed to MinIO and applied by the import's own workflow, which deduplicates by
 * source URL and links entities by name, alias and ticker. 202 with where to follow the import.
 */
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { AppError, notFound } from '../../models/errors';
import type { ImportDoc } from '../../models/news/import.repo';
import { queueImport } from '../../operations/news/queue-import';
import { bearer } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { ImportBody, ImportIdParams, ImportView } from './contracts';
import type { NewsDeps } from './deps';
import { IMPORT_ID, importBodyExample, importCompletedExample, importQueuedExample } from './examples/articles';

const route = routeFactory<NewsDeps>();
const admin = bearer('news.admin');
const tags = ['admin'];

/** Largest import accepted in one request. */
export const IMPORT_MAX_BYTES = 200 * 1024 * 1024;
const NDJSON = ['application/x-ndjson', 'application/jsonl', 'application/jsonlines'];

const statusUrl = (id: string) => `/api/admin/imports/${id}`;
const present = (d: ImportDoc): z.input<typeof ImportView> => ({
  id: d._id,
  state: d.state,
  source: d.source,
  bytes: d.bytes,
  linesDone: d.linesDone,
  inserted: d.inserted,
  duplicates: d.duplicates,
  invalid: d.invalid,
  unlinkedMentions: d.unlinkedMentions,
  errors: d.errors,
  error: d.error,
  createdAt: d.createdAt.toISOString(),
  startedAt: d.startedAt?.toISOString() ?? null,
  finishedAt: d.finishedAt?.toISOString() ?? null,
  statusUrl: statusUrl(d._id),
});

export const importRoutes = [
  route({
    method: 'post',
    path: '/api/admin/articles/import',
    summary: 'Import articles (JSON lines)',
    description:
      `Body: one article per line (Content-Type application/x-ndjson), at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB. Fields: title, subtitle, summary, sourceName, sourceUrl, publishedAt, primarySector, primaryTopic, ` +
      'contentType, urgencyLevel, isBreaking, isExclusive, language, baseScore, modules (sentiment, market_impact, translations, scoring, classification, meta) and entities ([{name | ticker, mentionCount}]). ' +
      'Lines whose sourceUrl was imported before are counted as duplicates; invalid lines are counted and listed with their error. Needs the news.admin permission. ' +
      'With an Idempotency-Key a retry makes no second import: the streamed body is not compared, so the key alone names the import (a repeat gets the first import, as it is now, without its body being read).',
    tags,
    auth: admin,
    body: ImportBody,
    bodyType: 'application/x-ndjson',
    bodyMaxBytes: IMPORT_MAX_BYTES,
    status: 202,
    response: ImportView,
    errors: [413, 415, 503],
    idempotent: true,
    example: { body: importBodyExample, response: importQueuedExample },
    handler: async ({ ctx, auth, deps, requestKey }) => {
      if (!ctx.is(NDJSON)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the articles as JSON lines with Content-Type ${NDJSON[0]}`);
      const doc = await queueImport(deps, ctx.req as Readable, { source: 'api', requestedBy: auth.sub, maxBytes: IMPORT_MAX_BYTES, requestKey });
      return reply({ status: 202, data: present(doc), headers: { Location: statusUrl(doc._id) } });
    },
  }),

  route({
    method: 'get',
    path: '/api/admin/imports/:id',
    summary: 'One import: state and counts',
    tags,
    auth: admin,
    params: ImportIdParams,
    response: ImportView,
    errors: [404],
    example: { params: { id: IMPORT_ID }, response: importCompletedExample },
    handler: async ({ params, deps }) => {
      const doc = await deps.imports.get(params.id);
      if (!doc) notFound('Import');
      return present(doc);
    },
  }),
];
