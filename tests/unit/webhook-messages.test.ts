/**
 * Webhook messages (issue 40, part 5): which endpoints an event makes a message for (type, state,
 * filters as the stream matches them, registered before the event), the body an account's plan
 * shows, the headers the delivery log keeps; the fan-out's page with fakes (idempotent by endpoint
 * and event, only pending messages started, an expired event sends nothing), the relay, and the
 * publish operation starting the fan-out without failing the publication when Temporal is away.
 */
import type { WebhookMessageDoc } from '../../models/events/webhook-message.repo';
import { articleMessageBody, endpointWants, loggedHeaders, testMessageBody, type SubscribedEndpoint } from '../../models/events/webhook-message.rules';
import { publishEvents } from '../../operations/events/publish';
import { fanOutPage, relayUndispatched } from '../../operations/events/webhook-fanout';
import { eventArticle, eventAt } from '../helpers/events';

const at = new Date('2026-11-26T12:00:00.000Z');
const endpoint = (over: Partial<SubscribedEndpoint> & { _id: string }): SubscribedEndpoint => ({ accountId: 'acct', eventTypes: ['article.breaking'], filters: {}, state: 'enabled', createdAt: new Date(at.getTime() - 1_000), ...over });

describe('endpointWants', () => {
  const event = eventAt(7, { isBreaking: true, primarySector: 'ENE', primaryTopic: 'DIV', tickers: ['PETR4'], entityIds: ['e-petrobras'] }, at);

  it('wants an event of a subscribed type whose filters all match (any value of each list)', () => {
    expect(endpointWants(endpoint({ _id: 'a' }), event)).toBe(true);
    expect(endpointWants(endpoint({ _id: 'b', filters: { sectors: ['FIN', 'ENE'], tickers: ['PETR4'] } }), event)).toBe(true);
    expect(endpointWants(endpoint({ _id: 'c', filters: { entityIds: ['e-petrobras'], topics: ['DIV'] } }), event)).toBe(true);
  });

  it('refuses another type, a filter that does not match, a disabled endpoint, one registered after the event', () => {
    expect(endpointWants(endpoint({ _id: 'a', eventTypes: ['article.published'] }), event)).toBe(false);
    expect(endpointWants(endpoint({ _id: 'b', filters: { sectors: ['FIN'] } }), event)).toBe(false);
    expect(endpointWants(endpoint({ _id: 'c', filters: { sectors: ['ENE'], tickers: ['VALE3'] } }), event)).toBe(false);
    expect(endpointWants(endpoint({ _id: 'd', state: 'disabled' }), event)).toBe(false);
    expect(endpointWants(endpoint({ _id: 'e', createdAt: new Date(at.getTime() + 1) }), event)).toBe(false);
  });
});

describe('message bodies', () => {
  it("is Standard Webhooks' {type, timestamp, data} with the article as the plan shows it", () => {
    const event = eventAt(3, { isBreaking: true }, at);
    const starter = JSON.parse(articleMessageBody(event, 'starter'));
    const pro = JSON.parse(articleMessageBody(event, 'pro'));
    expect(Object.keys(starter)).toEqual(['type', 'timestamp', 'data']);
    expect(starter).toMatchObject({ type: 'article.breaking', timestamp: at.toISOString(), data: { id: event.article._id, title: event.article.title } });
    // Sentiment and scoring are Pro's modules, not Starter's.
    expect(starter.data).not.toHaveProperty('sentimentScore');
    expect(pro.data).toHaveProperty('sentimentScore', 0.5);
    expect(JSON.parse(testMessageBody('we_x', at))).toEqual({ type: 'webhook.test', timestamp: at.toISOString(), data: { endpointId: 'we_x', message: expect.any(String) } });
  });

  it('the log keeps every header but the signatures, saying how many were sent', () => {
    const logged = loggedHeaders({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAA v1,BBB', 'content-type': 'application/json' });
    expect(logged).toEqual({ 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': '(2 signatures)', 'content-type': 'application/json' });
    expect(loggedHeaders({ 'webhook-signature': 'v1,AAA' })['webhook-signature']).toBe('(1 signature)');
  });
});

describe('fanOutPage', () => {
  function fakes(endpoints: SubscribedEndpoint[]) {
    const stored = new Map<string, WebhookMessageDoc>();
    const started: string[] = [];
    const event = eventAt(9, { isBreaking: true, primarySector: 'ENE' }, at);
    const deps = {
      events: { byKey: jest.fn(async (key: string) => (key === event.key ? event : null)), markDispatched: jest.fn() },
      webhookEndpoints: { pageSubscribed: jest.fn(async (_type: string, after: string | null, limit: number) => endpoints.filter((e) => after === null || e._id > after).slice(0, limit).map((e) => ({ ...e, eventTypes: [...e.eventTypes], url: '', description: null, disabledReason: null, failingSince: null, updatedAt: at }))) },
      webhookMessages: {
        createMany: jest.fn(async (docs: readonly WebhookMessageDoc[]) => {
          for (const d of docs) if (![...stored.values()].some((m) => m.endpointId === d.endpointId && m.eventKey === d.eventKey)) stored.set(d._id, d);
          return [...stored.values()].filter((m) => docs.some((d) => d.endpointId === m.endpointId && d.eventKey === m.eventKey));
        }),
      },
      users: { plansOf: jest.fn(async (ids: string[]) => new Map(ids.map((id) => [id, id === 'rich' ? ('business' as const) : ('starter' as const)]))) },
      starts: { messages: jest.fn(async (ids: readonly string[]) => void started.push(...ids)) },
      now: () => at,
    };
    return { deps, stored, started, event };
  }

  it("makes one message per wanting endpoint, with its plan's body, starts them, and reads on from the last endpoint", async () => {
    const { deps, stored, started, event } = fakes([endpoint({ _id: 'we_1' }), endpoint({ _id: 'we_2', accountId: 'rich' }), endpoint({ _id: 'we_3', filters: { sectors: ['FIN'] } })]);
    expect(await fanOutPage(deps, { eventKey: event.key, after: null, limit: 3 })).toEqual({ messages: 2, next: 'we_3' });
    expect([...stored.values()].map((m) => [m.endpointId, m.state, m.attempts])).toEqual([
      ['we_1', 'pending', 0],
      ['we_2', 'pending', 0],
    ]);
    expect(JSON.parse([...stored.values()][1]!.body).data).toHaveProperty('sentimentScore');
    expect(JSON.parse([...stored.values()][0]!.body).data).not.toHaveProperty('sentimentScore');
    expect(started).toEqual([...stored.keys()]);
    expect(await fanOutPage(deps, { eventKey: event.key, after: 'we_3', limit: 3 })).toEqual({ messages: 0, next: null });
  });

  it('repeated, makes no second message and starts only those still pending', async () => {
    const { deps, stored, started, event } = fakes([endpoint({ _id: 'we_1' }), endpoint({ _id: 'we_2' })]);
    await fanOutPage(deps, { eventKey: event.key, after: null, limit: 10 });
    [...stored.values()][0]!.state = 'delivered';
    started.length = 0;
    expect(await fanOutPage(deps, { eventKey: event.key, after: null, limit: 10 })).toEqual({ messages: 2, next: null });
    expect(stored.size).toBe(2);
    expect(started).toEqual([[...stored.keys()][1]]);
  });

  it('an event no longer in the log sends nothing', async () => {
    const { deps, started } = fakes([endpoint({ _id: 'we_1' })]);
    expect(await fanOutPage(deps, { eventKey: 'article:gone', after: null, limit: 10 })).toEqual({ messages: 0, next: null });
    expect(deps.webhookEndpoints.pageSubscribed).not.toHaveBeenCalled();
    expect(started).toEqual([]);
  });
});

describe('the relay and the publication', () => {
  it('the relay starts the fan-out of the events not dispatched a while after they were appended', async () => {
    const undispatched = jest.fn(async () => ['article:a', 'article:b']);
    const fanOut = jest.fn(async () => undefined);
    expect(await relayUndispatched({ events: { undispatched }, starts: { fanOut }, now: () => at }, { olderThanMs: 30_000, limit: 100 })).toEqual({ forwarded: 2 });
    expect(undispatched).toHaveBeenCalledWith(new Date(at.getTime() - 30_000), 100);
    expect(fanOut).toHaveBeenCalledWith(['article:a', 'article:b']);
  });

  it('publishing starts the fan-out of each event; Temporal away fails nothing (the relay starts it later)', async () => {
    const article = eventArticle({ isBreaking: true });
    const appendArticles = jest.fn(async () => [{ articleId: article._id, seq: 1, appended: true }]);
    const webhookFanOut = jest.fn(async () => {
      throw new Error('14 UNAVAILABLE: Temporal is away');
    });
    expect(await publishEvents({ events: { appendArticles }, webhookFanOut }, [article])).toEqual([{ articleId: article._id, seq: 1, appended: true }]);
    expect(webhookFanOut).toHaveBeenCalledWith([`article:${article._id}`]);
  });
});
