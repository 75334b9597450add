/**
 * The feed fetcher under the stack's own configuration (issue 35): loopback is allowed for the news
 * sites double's ports only. A feed item or page linking to another loopback port (Mailpit, which
 * holds sign-in codes; MinIO; the double's control API) is refused without a connection.
 */
import { parseConfig } from '../../models/config';
import { createPoliteFetcher } from '../../models/infra/polite-fetch';

const config = parseConfig(process.env);
const fetcher = createPoliteFetcher({ userAgent: config.news.fetch.userAgent, allowHosts: config.news.fetch.allowHosts, timeoutMs: 5_000 });
const DOUBLE = process.env.NEWS_WEB_DOUBLE_URL!;

async function refusal(url: string): Promise<unknown> {
  return await fetcher.fetch(url).then(
    () => new Error(`${url} was fetched`),
    (err: unknown) => err,
  );
}

describe('the fetcher on the development stack', () => {
  it("reads the news sites double's feeds", async () => {
    const info = (await (await fetch(`${DOUBLE}/__control/info`)).json()) as { sites: { feedUrl: string }[] };
    expect(info.sites.length).toBeGreaterThan(0);
    const result = await fetcher.fetch(info.sites[0]!.feedUrl);
    expect(result).toMatchObject({ kind: 'ok', status: 200 });
  });

  it.each([
    ['Mailpit, which holds sign-in codes', () => `${process.env.MAILPIT_URL}/api/v1/messages`],
    ['MinIO', () => `${process.env.MINIO_ENDPOINT}/minio/health/live`],
    ["the double's control API", () => `${DOUBLE}/__control/info`],
  ])('refuses %s on loopback', async (_what, url) => {
    expect(await refusal(url())).toMatchObject({ code: 'refused', message: expect.stringContaining('(loopback)') });
  });
});
