/**
 * The News Intelligence API's reference overview and tag descriptions (issue 37): how a customer
 * gets a key, a first request, and the plans' limits, from the code's own numbers.
 */
import { INCLUDE_MODULES, PLAN_LIMITS, PLANS, planName } from '../../models/shared/plan.rules';
import { firstRequestBlocks, overview } from '../shared/reference';

const number = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-GB'));

const planTable = [
  '| Plan | Requests a minute (account) | Requests a month (live keys) | Active keys | Webhook endpoints | Include modules |',
  '|---|---|---|---|---|---|',
  ...PLANS.map((p) => {
    const l = PLAN_LIMITS[p];
    return `| ${planName(p)} | ${number(l.perMinute)} | ${number(l.perMonth)} | ${l.activeKeys} | ${l.webhookEndpoints} | ${l.modules.length === INCLUDE_MODULES.length ? 'all' : l.modules.join(', ')} |`;
  }),
].join('\n');

export const newsDescription = overview({
  summary:
    'Brazilian financial news as data: articles from the sources we follow, searchable, with the companies, tickers and people they mention, and the enrichment modules of your plan (sentiment, market impact, entities, translations, scores, classification, reading metadata). The same account reads the personalised feed and sets its alert preferences.',
  credential: [
    '1. Sign up in the **dashboard** (the web address your account manager gave you, `WEB_URL`): enter your e-mail and the code we mail you. There is no password.',
    '2. Under **API keys**, create a key. Its value is shown **once**: keep it in your secret store. A `nws_live_…` key counts against your plan; a `nws_test_…` key reads the same data from the sandbox, with a small daily cap, to build your integration.',
    '3. Send it in the `X-API-Key` header of every request. The account operations (keys, billing, preferences) take the account\'s bearer token instead (`Authorization: Bearer …`), as the dashboard does.',
    'A key can be revoked at any time in the dashboard; its next request is `401`.',
  ].join('\n'),
  firstRequest: [
    'The five newest articles, with their sentiment and entities (the `servers` entry above is the address to use as `NEWS_URL`):',
    firstRequestBlocks(
      'curl -sS "$NEWS_URL/api/articles?limit=5&include=sentiment,entities" -H "X-API-Key: $NEWS_API_KEY"',
      [
        "import { createNewsClient } from '@newsletter-platform/clients';",
        '',
        'const news = createNewsClient({ baseUrl: process.env.NEWS_URL!, apiKey: process.env.NEWS_API_KEY });',
        "const { data, error } = await news.GET('/api/articles', { params: { query: { limit: 5, include: ['sentiment', 'entities'] } } });",
        'if (error) throw new Error(error.error);',
        'for (const article of data.data) console.log(article.title, article.sentimentLabel);',
      ].join('\n'),
      [
        'import os',
        'import requests',
        '',
        'response = requests.get(',
        '    f"{os.environ[\'NEWS_URL\']}/api/articles",',
        '    params={"limit": 5, "include": "sentiment,entities"},',
        '    headers={"X-API-Key": os.environ["NEWS_API_KEY"]},',
        '    timeout=30,',
        ')',
        'response.raise_for_status()',
        'for article in response.json()["data"]:',
        '    print(article["title"], article.get("sentimentLabel"))',
      ].join('\n'),
    ),
    'A module outside your plan is a `403` naming the plan that includes it.',
  ].join('\n\n'),
  pagination:
    'Lists take `limit` (1–100, 20 unless given) and `offset` (from 0), and answer `pagination: {limit, offset, total, hasMore}`. Ask for the next page with `offset + limit` while `hasMore` is true. `total` of a long list may be a count a few seconds old; `hasMore` is always exact.',
  failureExample: JSON.stringify({ success: false, error: 'Invalid request: query.limit: Too big: expected number to be <=100', statusCode: 400, code: 'VALIDATION_FAILED', details: [{ path: 'query.limit', message: 'Too big: expected number to be <=100' }] }, null, 2),
  limits: [
    'Limits hold **per account**, whichever of its keys sends the request (live and test keys share the minute):',
    planTable,
    "The month is the calendar month in UTC. The account's test keys together have a daily sandbox cap. `GET /api/usage` shows each counter, what is left and when it resets.",
  ].join('\n\n'),
});

export const newsTags: Record<string, string> = {
  'api keys': 'Create, list and revoke the account\'s API keys (with the account\'s bearer token). A key\'s value is shown once, when it is created.',
  usage: "The account's use against its plan: this minute, this month, the sandbox's day, and per key.",
  webhooks: 'Endpoints of the account that receive signed webhooks (Standard Webhooks) of articles published and breaking news: register, change, enable or disable, remove, rotate the signing secret. The secret is shown once, when the endpoint is made and at each rotation.',
  preferences: 'What the account follows (sectors, topics, companies, tickers, sources) and how it wants alerts: the personalised feed and notifications read them.',
  articles: 'Articles, newest first or by score, urgency or relevance; full-text search; breaking news; the personalised feed; and a live stream of articles as they are published (Server-Sent Events, GET /api/stream). `include` adds the enrichment modules of your plan.',
  entities: 'Companies, people, tickers and places the articles mention, with their articles.',
  admin: 'Editors and administrators: news sources, imports of articles, re-enrichment and entity candidates (bearer token with news.admin).',
  subscriptions: "Plans and prices, the account's subscription, Stripe Checkout and the customer portal, and Stripe's webhook.",
  whatsapp: "Alerts and questions by WhatsApp: linking a verified phone to the account, and Meta's webhook.",
  operations: "The service's own operations (smoke test for operators).",
};
