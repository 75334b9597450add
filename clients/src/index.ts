/**
 * Typed clients of the platform's four APIs. The types are generated from each service's OpenAPI
 * document (`npm run clients` in the repository: ops/openapi/clients.ts, openapi-typescript), and
 * the calls are openapi-fetch's: `client.GET('/api/articles', { params: { query: { include: [...] } } })`
 * is checked against the document at compile time, and its `data` is the answer's typed envelope.
 */
import createClient, { mergeHeaders, type Client, type ClientOptions } from 'openapi-fetch';
import type { paths as NewsPaths } from './generated/news';
import type { paths as QuizPaths } from './generated/quiz';
import type { paths as SupportPaths } from './generated/support';
import type { paths as WebPaths } from './generated/web';

export type { NewsPaths, QuizPaths, SupportPaths, WebPaths };
export type { components as NewsComponents } from './generated/news';
export type { components as QuizComponents } from './generated/quiz';
export type { components as SupportComponents } from './generated/support';
export type { components as WebComponents } from './generated/web';

export interface ClientConfig extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's address, e.g. `https://news.example.com` (no trailing slash). */
  baseUrl: string;
}

/** The arrays of `explode: false` parameters (`include`) are sent comma-separated, as the documents say. */
const querySerializer = { array: { style: 'form', explode: false } } as const;

/**
 * The config with the credential's header added; the caller's headers (an object or a Headers, as
 * openapi-fetch takes them) are kept, and win over the credential's.
 */
const withBearer = (config: ClientConfig, token: string | undefined): ClientOptions => ({
  querySerializer,
  ...config,
  headers: mergeHeaders(token ? { authorization: `Bearer ${token}` } : undefined, config.headers),
});

/**
 * The News Intelligence API: its data routes take an API key (created in the dashboard, sent as
 * `X-API-Key`), its account routes (keys, billing, preferences) the account's bearer token.
 */
export function createNewsClient(config: ClientConfig & { apiKey?: string; token?: string }): Client<NewsPaths> {
  const { apiKey, token, ...rest } = config;
  const options = withBearer(rest, token);
  return createClient<NewsPaths>({ ...options, headers: mergeHeaders(apiKey ? { 'x-api-key': apiKey } : undefined, options.headers) });
}

/** The Support API, authenticated by a bearer token (a JWT of the customer or the agent). */
export function createSupportClient(config: ClientConfig & { token?: string }): Client<SupportPaths> {
  const { token, ...rest } = config;
  return createClient<SupportPaths>(withBearer(rest, token));
}

/** The Quiz & AI Chat API, authenticated by a bearer token (a JWT). */
export function createQuizClient(config: ClientConfig & { token?: string }): Client<QuizPaths> {
  const { token, ...rest } = config;
  return createClient<QuizPaths>(withBearer(rest, token));
}

/** The dashboard's API (session cookie and CSRF header; a browser's, mostly). */
export function createWebClient(config: ClientConfig): Client<WebPaths> {
  return createClient<WebPaths>({ querySerializer, ...config });
}
