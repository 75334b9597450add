/**
 * What the WhatsApp workflows ask of the world (issue 15): the messages stored by the webhook,
 * the reader behind a phone (the account it is linked to), the news, the account's preferences,
 * and sending through the Cloud API. Every step is safe to repeat: a message is sent once under
 * its key however often the activity is retried, accounts are created under an id derived from
 * the phone and e-mail, and log-in codes are derived from their message's key.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { withAttempt } from './attempt';
import type { Connection } from 'mongoose';
import type { Config } from '../models/config';
import { createWhatsAppClient, WhatsAppSendError, type OutboundMessage, type WhatsAppClient } from '../models/infra/whatsapp';
import { createArticleQueries } from '../models/news/article-query';
import type { Sector, Topic } from '../models/news/article.rules';
import { createPreferencesRepo } from '../models/news/preferences.repo';
import { userModel } from '../models/users/user.model';
import { createUserRepo } from '../models/users/user.repo';
import { isUnprovenWhatsAppUser, unverifiedEmailOf, verifiedEmailOf } from '../models/users/email.rules';
import { SECTOR_LABELS, TOPIC_LABELS } from '../models/whatsapp/conversation.rules';
import { createWhatsAppRepo, type OutboundDoc } from '../models/whatsapp/whatsapp.repo';
import type { InboundContent } from '../models/whatsapp/webhook.rules';
import { WHATSAPP_FAILURES } from '../workflows/whatsapp/failures';
import { collectionOf } from '../models/infra/mongo';
import { terms as termsOf } from '../models/news/text.rules';
import { LOGIN_CODE_TTL_MS, loginCode, loginCodeHash, signUpUserId } from '../models/whatsapp/login-code.rules';
import type { WhatsAppActivities } from '../workflows/whatsapp/activities';

export interface WhatsAppActivityDeps {
  conn: Connection;
  config: Pick<Config, 'whatsapp'>;
  /** Derives log-in codes (HMAC of the code message's key); without one, log-in codes are refused. */
  codeSecret: string | undefined;
  /** Undefined: made from the configuration (tests pass their own). */
  client?: WhatsAppClient | undefined;
  now?: () => Date;
}

/** Alerts a batch sends at once. */
const ALERT_CONCURRENCY = 8;

const headline = (a: { title: string; sourceName: string; publishedAt: Date; isBreaking?: boolean }) =>
  `${a.isBreaking ? '🚨 ' : '• '}*${a.title}* (${a.sourceName}, ${a.publishedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;

export function createWhatsAppActivities(deps: WhatsAppActivityDeps): WhatsAppActivities {
  const repo = createWhatsAppRepo(deps.conn);
  const prefs = createPreferencesRepo(deps.conn);
  const articles = createArticleQueries(deps.conn);
  const Users = userModel(deps.conn);
  const users = createUserRepo(deps.conn);
  const now = deps.now ?? (() => new Date());
  const api = deps.config.whatsapp.api;
  const client = deps.client ?? (api ? createWhatsAppClient({ apiUrl: api.url, accessToken: api.accessToken, phoneNumberId: api.phoneNumberId }) : undefined);
  const articlesCollection = () => collectionOf<{ _id: string; title: string; sourceName: string; publishedAt: Date; isBreaking: boolean }>(deps.conn, 'articles');

  /** Sends once under `key`: a message already accepted is not sent again. */
  async function sendOnce(input: { key: string; phone: string; kind: OutboundDoc['kind']; message: OutboundMessage; recorded?: OutboundMessage }): Promise<{ wamid: string; duplicate: boolean }> {
    if (!client) throw ApplicationFailure.create({ type: WHATSAPP_FAILURES.notConfigured, nonRetryable: true, message: 'WhatsApp is not configured on this worker (WHATSAPP_ACCESS_TOKEN, WHATSAPP_PHONE_NUMBER_ID)' });
    const claimed = await repo.claimOutbound(input.key, input.phone, input.kind, input.recorded ?? input.message);
    if (claimed.wamid) return { wamid: claimed.wamid, duplicate: true };
    let wamid: string;
    try {
      wamid = await client.send(input.phone, input.message);
    } catch (err) {
      if (err instanceof WhatsAppSendError && !err.retryable) {
        throw ApplicationFailure.create({ type: WHATSAPP_FAILURES.rejected, nonRetryable: true, message: err.message, details: [{ status: err.status, code: err.code }] });
      }
      throw err; // 429, 5xx, the network: Temporal retries with backoff
    }
    await repo.markSent(input.key, wamid);
    return { wamid, duplicate: false };
  }

  return {
    send: (input: { key: string; phone: string; kind: OutboundDoc['kind']; message: OutboundMessage }) => sendOnce(input),

    /** The stored message, and whether it was handled already (null: not stored). */
    async loadInbound(id: string): Promise<{ content: InboundContent; handled: boolean } | null> {
      const doc = await repo.inboundById(id);
      return doc ? { content: doc.content, handled: doc.handledAt !== null } : null;
    },
    markHandled: (id: string) => repo.markHandled(id),

    /**
     * The account linked to the phone, if any; `provisional` when it is a WhatsApp sign-up whose
     * address nobody proved (the phone may then log in to an account whose address is proven).
     */
    async readerOf(phone: string): Promise<{ userId: string | null; name: string | null; provisional?: boolean }> {
      const contact = await repo.contact(phone);
      if (!contact?.userId) return { userId: null, name: contact?.profileName ?? null };
      const user = await Users.findById(contact.userId).lean();
      return { userId: contact.userId, name: user?.name ?? contact.profileName ?? null, ...(user && isUnprovenWhatsAppUser(user) ? { provisional: true } : {}) };
    },

    /** The reader's feed (or the newest articles, without an account), as a message. */
    async latestNews(userId: string | null): Promise<string> {
      const at = now();
      let ids: string[];
      if (userId) {
        const feed = await articles.feed(await prefs.get(userId), { limit: 5, offset: 0 }, at);
        ids = feed.items.map((i) => i.article._id);
      } else {
        ids = (await articlesCollection().find({}, { projection: { _id: 1 }, sort: { publishedAt: -1, _id: -1 }, limit: 5 }).toArray()).map((a) => a._id);
      }
      if (ids.length === 0) return 'Ainda não há notícias por aqui. Volte mais tarde!';
      const found = await articlesCollection().find({ _id: { $in: ids } }, { projection: { title: 1, sourceName: 1, publishedAt: 1, isBreaking: 1 } }).toArray();
      const byId = new Map(found.map((a) => [a._id, a]));
      const lines = ids.map((id) => byId.get(id)).filter((a) => a !== undefined).map(headline);
      return [userId ? 'Últimas do seu feed:' : 'Últimas notícias (envie *cadastro* para um feed do seu jeito):', ...lines].join('\n');
    },

    async breakingNews(): Promise<string> {
      const found = await articlesCollection().find({ isBreaking: true }, { projection: { title: 1, sourceName: 1, publishedAt: 1, isBreaking: 1 }, sort: { publishedAt: -1, _id: -1 }, limit: 5 }).toArray();
      if (found.length === 0) return 'Nenhuma notícia urgente agora.';
      return ['Notícias urgentes:', ...found.map(headline)].join('\n');
    },

    async accountSummary(input: { userId: string | null; phone: string }): Promise<string> {
      if (!input.userId) return 'Este número ainda não está vinculado a uma conta. Envie *cadastro* para criar uma ou *entrar* se você já tem.';
      const [user, p] = await Promise.all([Users.findById(input.userId).lean(), prefs.get(input.userId)]);
      const sectors = p.sectors.map((s) => SECTOR_LABELS[s]).join(', ') || 'nenhum';
      const topics = p.topics.map((t) => TOPIC_LABELS[t]).join(', ') || 'nenhum';
      const verified = user ? verifiedEmailOf(user) : undefined;
      const unverified = user ? unverifiedEmailOf(user) : undefined;
      const address = verified ? ` <${verified}>` : unverified ? ` <${unverified}> (não confirmado)` : '';
      return [
        `Conta: ${user?.name ?? '(sem nome)'}${address}`,
        `Plano: ${user?.plan ?? 'starter'}`,
        `Alertas no WhatsApp: ${p.notificationSettings.whatsapp ? 'ligados' : 'desligados'}`,
        `Setores: ${sectors}`,
        `Temas: ${topics}`,
      ].join('\n');
    },

    async setAlerts(input: { userId: string; on: boolean }): Promise<void> {
      await prefs.update(input.userId, { $set: { 'notificationSettings.whatsapp': input.on } });
    },

    async loadPreferences(userId: string): Promise<{ sectors: Sector[]; topics: Topic[] }> {
      const p = await prefs.get(userId);
      return { sectors: [...p.sectors], topics: [...p.topics] };
    },

    async savePreferences(input: { userId: string; sectors: Sector[]; topics: Topic[] }): Promise<void> {
      await prefs.update(input.userId, { $set: { sectors: input.sectors, topics: input.topics } });
    },

    /**
     * Creates the account (Starter) and links the phone to it; 'emailTaken' when an account has
     * proven the e-mail (its owner links this phone to it by *entrar*). The typed address is kept
     * unproven (models/users/email.rules.ts): it names nobody's account, and a verified sign-in
     * with it gets an account of its own, never this one (issue 35: pre-hijack). Another phone
     * typing the same address gets an account of its own too. Repeatable: the id is derived from
     * the phone and e-mail.
     */
    async signUp(input: { phone: string; name: string; email: string }): Promise<'created' | 'emailTaken'> {
      const id = signUpUserId(input.phone, input.email);
      const existing = await users.findByVerifiedEmail(input.email);
      if (existing && existing._id !== id) return 'emailTaken';
      await users.ensureWhatsAppSignUp(id, { name: input.name, email: input.email });
      await repo.link(input.phone, id, now());
      return 'created';
    },

    /**
     * A page of the readers to alert of a breaking article: WhatsApp alerts on, a linked phone, and
     * the article in what they follow (sector, topic, watchlist company or ticker, or every term of
     * a keyword), at or above their minimum score. By account id, `limit` after `after`.
     */
    async alertRecipients(input: { articleId: string; after: string | null; limit: number }): Promise<{ title: string | null; recipients: { userId: string; phone: string; inWindow: boolean }[]; next: string | null }> {
      const article = await collectionOf<{ _id: string; title: string; isBreaking: boolean; primarySector: string; primaryTopic: string; entityIds: string[]; tickers: string[]; terms: string[]; baseScore: number }>(deps.conn, 'articles')
        .findOne({ _id: input.articleId }, { projection: { title: 1, isBreaking: 1, primarySector: 1, primaryTopic: 1, entityIds: 1, tickers: 1, terms: 1, baseScore: 1 } });
      if (!article?.isBreaking) return { title: article?.title ?? null, recipients: [], next: null };
      const terms = new Set(article.terms);
      const page = await collectionOf<{ _id: string; sectors: string[]; topics: string[]; watchlistCompanies: string[]; watchlistTickers: string[]; keywords: string[] }>(deps.conn, 'user_preferences')
        .find(
          {
            'notificationSettings.whatsapp': true,
            'notificationSettings.minScore': { $lte: article.baseScore },
            ...(input.after ? { _id: { $gt: input.after } } : {}),
            $or: [
              { sectors: article.primarySector },
              { topics: article.primaryTopic },
              { watchlistCompanies: { $in: article.entityIds } },
              { watchlistTickers: { $in: article.tickers } },
              { 'keywords.0': { $exists: true } },
            ],
          },
          { projection: { sectors: 1, topics: 1, watchlistCompanies: 1, watchlistTickers: 1, keywords: 1 }, sort: { _id: 1 }, limit: input.limit },
        )
        .toArray();
      const matches = page.filter(
        (p) =>
          p.sectors.includes(article.primarySector) ||
          p.topics.includes(article.primaryTopic) ||
          p.watchlistCompanies.some((c) => article.entityIds.includes(c)) ||
          p.watchlistTickers.some((t) => article.tickers.includes(t)) ||
          p.keywords.some((k) => {
            const words = termsOf(k);
            return words.length > 0 && words.every((t) => terms.has(t));
          }),
      );
      const phones = await repo.phonesOf(matches.map((p) => p._id));
      const windowStart = now().getTime() - 24 * 3_600_000;
      return {
        title: article.title,
        recipients: phones.map((c) => ({ userId: c.userId!, phone: c._id, inWindow: (c.lastInboundAt?.getTime() ?? 0) > windowStart })),
        next: page.length === input.limit ? page[page.length - 1]!._id : null,
      };
    },

    /**
     * Sends a breaking article's alert to each recipient once (key `alert:<article>:<phone>`),
     * within the hourly cap: as text inside WhatsApp's 24-hour window, else as the approved
     * template. A throttled or failing API fails the batch, which is retried (what was sent is not
     * sent again); a refused message is counted and the rest go on. An attempt that is over
     * (cancelled, or past its start-to-close timeout: activities/attempt.ts) begins no further
     * recipient.
     */
    sendAlerts: (input: { articleId: string; title: string; recipients: { phone: string; inWindow: boolean }[] }): Promise<{ sent: number; capped: number; refused: number }> => withAttempt(async ({ signal }) => {
      const hour = new Date(Math.floor(now().getTime() / 3_600_000) * 3_600_000);
      const template = deps.config.whatsapp.alertTemplate;
      let sent = 0;
      let capped = 0;
      let refused = 0;
      // Readers are independent (one alert per phone and article): a few at a time, not one by one.
      const queue = [...input.recipients];
      const alert = async (r: { phone: string; inWindow: boolean }): Promise<void> => {
        signal.throwIfAborted();
        const key = `alert:${input.articleId}:${r.phone}`;
        if (!(await repo.takeAlertSlot(r.phone, hour, deps.config.whatsapp.alertsPerHour, key))) {
          capped += 1;
          return;
        }
        const message: OutboundMessage = r.inWindow
          ? { type: 'text', text: `🚨 Urgente: *${input.title}*\n\nEnvie *noticias* para ver mais, ou *parar* para pausar os alertas.` }
          : { type: 'template', name: template.name, language: template.language, parameters: [input.title.slice(0, 900)] };
        try {
          await sendOnce({ key, phone: r.phone, kind: 'alert', message });
          sent += 1;
        } catch (err) {
          if (err instanceof ApplicationFailure && err.type === WHATSAPP_FAILURES.rejected) refused += 1;
          else throw err;
        }
      };
      await Promise.all(Array.from({ length: ALERT_CONCURRENCY }, async () => {
        for (let r = queue.shift(); r; r = queue.shift()) await alert(r);
      }));
      return { sent, capped, refused };
    }),

    /**
     * When an account has proven the e-mail: stores a code for it and sends the code to the phone
     * (under `key`, once). Nothing is sent otherwise (an address only typed on WhatsApp included),
     * and the reader is told the same either way.
     */
    async requestLoginCode(input: { phone: string; email: string; key: string }): Promise<void> {
      const user = await users.findByVerifiedEmail(input.email);
      if (!user) return;
      if (!deps.codeSecret) throw ApplicationFailure.create({ type: WHATSAPP_FAILURES.notConfigured, nonRetryable: true, message: 'no secret to derive log-in codes from (WHATSAPP_APP_SECRET or JWT_SECRET)' });
      const code = loginCode(deps.codeSecret, input.key);
      await repo.saveLoginCode(user._id, input.phone, loginCodeHash(user._id, code), new Date(now().getTime() + LOGIN_CODE_TTL_MS));
      const text = (c: string) => `Seu código para vincular este número: *${c}*. Ele vale por 10 minutos. Se não foi você, ignore esta mensagem.`;
      await sendOnce({ key: input.key, phone: input.phone, kind: 'code', message: { type: 'text', text: text(code) }, recorded: { type: 'text', text: text('••••••') } });
    },
  };
}
