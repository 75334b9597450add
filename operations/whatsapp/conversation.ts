/**
 * What a WhatsApp conversation asks of the platform (issue 15), the use cases of the conversation
 * workflow's activities: the reader behind a phone, the news as messages, the account's summary
 * and preferences, signing up, and a log-in code for an account whose address is proven. Every
 * step is safe to repeat: accounts are created under an id derived from the phone and e-mail, and
 * log-in codes are derived from their message's key.
 */
import type { ArticleQueries, Headline } from '../../models/news/article-query';
import type { Sector, Topic } from '../../models/news/article.rules';
import type { PreferencesRepo } from '../../models/news/preferences.repo';
import { isUnprovenWhatsAppUser, unverifiedEmailOf, verifiedEmailOf } from '../../models/users/email.rules';
import type { UserRepo } from '../../models/users/user.repo';
import { SECTOR_LABELS, TOPIC_LABELS } from '../../models/whatsapp/conversation.rules';
import { LOGIN_CODE_TTL_MS, loginCode, loginCodeHash, signUpUserId } from '../../models/whatsapp/login-code.rules';
import type { WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import { sendOnce, WhatsAppNotConfigured, type OutboundDeps } from './outbound';

export interface ConversationDeps extends OutboundDeps {
  whatsapp: OutboundDeps['whatsapp'] & Pick<WhatsAppRepo, 'contact' | 'link' | 'saveLoginCode'>;
  users: Pick<UserRepo, 'findById' | 'findByVerifiedEmail' | 'ensureWhatsAppSignUp'>;
  preferences: Pick<PreferencesRepo, 'get' | 'update'>;
  articles: Pick<ArticleQueries, 'feed' | 'newestIds' | 'headlines' | 'breaking'>;
  /** Derives log-in codes (HMAC of the code message's key); undefined: log-in codes are refused. */
  codeSecret: string | undefined;
  now: () => Date;
}

/** Headlines a news message lists. */
const NEWS_LINES = 5;

const headline = (a: Headline) => `${a.isBreaking ? '🚨 ' : '• '}*${a.title}* (${a.sourceName}, ${a.publishedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`;

/**
 * The account linked to the phone, if any; `provisional` when it is a WhatsApp sign-up whose
 * address nobody proved (the phone may then log in to an account whose address is proven).
 */
export async function readerOf(deps: Pick<ConversationDeps, 'whatsapp' | 'users'>, phone: string): Promise<{ userId: string | null; name: string | null; provisional?: boolean }> {
  const contact = await deps.whatsapp.contact(phone);
  if (!contact?.userId) return { userId: null, name: contact?.profileName ?? null };
  const user = await deps.users.findById(contact.userId);
  return { userId: contact.userId, name: user?.name ?? contact.profileName ?? null, ...(user && isUnprovenWhatsAppUser(user) ? { provisional: true } : {}) };
}

/** The reader's feed (or the newest articles, without an account), as a message. */
export async function latestNews(deps: Pick<ConversationDeps, 'articles' | 'preferences' | 'now'>, userId: string | null): Promise<string> {
  const ids = userId
    ? (await deps.articles.feed(await deps.preferences.get(userId), { limit: NEWS_LINES, offset: 0 }, deps.now())).items.map((i) => i.article._id)
    : await deps.articles.newestIds(NEWS_LINES);
  if (ids.length === 0) return 'Ainda não há notícias por aqui. Volte mais tarde!';
  const lines = (await deps.articles.headlines(ids)).map(headline);
  return [userId ? 'Últimas do seu feed:' : 'Últimas notícias (envie *cadastro* para um feed do seu jeito):', ...lines].join('\n');
}

/** The newest breaking articles, as a message. */
export async function breakingNews(deps: Pick<ConversationDeps, 'articles'>): Promise<string> {
  const found = await deps.articles.breaking(NEWS_LINES);
  if (found.length === 0) return 'Nenhuma notícia urgente agora.';
  return ['Notícias urgentes:', ...found.map(headline)].join('\n');
}

/** The linked account (name, address, plan, alerts and what it follows), as a message. */
export async function accountSummary(deps: Pick<ConversationDeps, 'users' | 'preferences'>, input: { userId: string | null; phone: string }): Promise<string> {
  if (!input.userId) return 'Este número ainda não está vinculado a uma conta. Envie *cadastro* para criar uma ou *entrar* se você já tem.';
  const [user, p] = await Promise.all([deps.users.findById(input.userId), deps.preferences.get(input.userId)]);
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
}

export async function setAlerts(deps: Pick<ConversationDeps, 'preferences'>, input: { userId: string; on: boolean }): Promise<void> {
  await deps.preferences.update(input.userId, { $set: { 'notificationSettings.whatsapp': input.on } });
}

export async function loadPreferences(deps: Pick<ConversationDeps, 'preferences'>, userId: string): Promise<{ sectors: Sector[]; topics: Topic[] }> {
  const p = await deps.preferences.get(userId);
  return { sectors: [...p.sectors], topics: [...p.topics] };
}

export async function savePreferences(deps: Pick<ConversationDeps, 'preferences'>, input: { userId: string; sectors: Sector[]; topics: Topic[] }): Promise<void> {
  await deps.preferences.update(input.userId, { $set: { sectors: input.sectors, topics: input.topics } });
}

/**
 * Creates the account (Starter) and links the phone to it; 'emailTaken' when an account has
 * proven the e-mail (its owner links this phone to it by *entrar*). The typed address is kept
 * unproven (models/users/email.rules.ts): it names nobody's account, and a verified sign-in with
 * it gets an account of its own, never this one (issue 35: pre-hijack). Another phone typing the
 * same address gets an account of its own too. Repeatable: the id is derived from the phone and e-mail.
 */
export async function signUp(deps: Pick<ConversationDeps, 'users' | 'whatsapp' | 'now'>, input: { phone: string; name: string; email: string }): Promise<'created' | 'emailTaken'> {
  const id = signUpUserId(input.phone, input.email);
  const existing = await deps.users.findByVerifiedEmail(input.email);
  if (existing && existing._id !== id) return 'emailTaken';
  await deps.users.ensureWhatsAppSignUp(id, { name: input.name, email: input.email });
  await deps.whatsapp.link(input.phone, id, deps.now());
  return 'created';
}

/**
 * When an account has proven the e-mail: stores a code for it and sends the code to the phone
 * (under `key`, once; the stored copy of the message is masked). Nothing is sent otherwise (an
 * address only typed on WhatsApp included), and the reader is told the same either way.
 */
export async function requestLoginCode(deps: ConversationDeps, input: { phone: string; email: string; key: string }): Promise<void> {
  const user = await deps.users.findByVerifiedEmail(input.email);
  if (!user) return;
  if (!deps.codeSecret) throw new WhatsAppNotConfigured('no secret to derive log-in codes from (WHATSAPP_APP_SECRET or JWT_SECRET)');
  const code = loginCode(deps.codeSecret, input.key);
  await deps.whatsapp.saveLoginCode(user._id, input.phone, loginCodeHash(user._id, code), new Date(deps.now().getTime() + LOGIN_CODE_TTL_MS));
  const text = (c: string) => `Seu código para vincular este número: *${c}*. Ele vale por 10 minutos. Se não foi você, ignore esta mensagem.`;
  await sendOnce(deps, { key: input.key, phone: input.phone, kind: 'code', message: { type: 'text', text: text(code) }, recorded: { type: 'text', text: text('••••••') } });
}
