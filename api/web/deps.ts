/**
 * What the dashboard's routes use, built once per process: the shared bundles it serves
 * (api/shared/bundles.ts: keys and their usage, the reader's preferences, billing, the WhatsApp
 * link, the quiz store, the webhook endpoints) and its own accounts, staff, sign-in limits and mailer. Not the Stripe and WhatsApp
 * webhooks' relays nor the newsroom: the news service serves those. The use cases are the shared operations.
 */
import nodemailer from 'nodemailer';
import { createAccountRepo, type AccountRepo } from '../../models/accounts/account.repo';
import { smtpUrl, type Config } from '../../models/config';
import { createMailer, smtpOptions, type Mailer } from '../../models/infra/mail';
import { opsOverview, PROBE_TIMEOUT_MS, sharedOverview, type OpsOverview } from '../../operations/ops/overview';
import { createStaffRepo, type StaffRepo } from '../../models/staff/staff.repo';
import { createPushSubscriptionRepo, type PushSubscriptionRepo } from '../../models/news/push-subscription.repo';
import {
  billingBundle,
  keysBundle,
  quizBundle,
  readerBundle,
  whatsappBundle,
  webhooksBundle,
  windowLimiter,
  type BillingBundle,
  type KeysBundle,
  type QuizBundle,
  type ReaderBundle,
  type WhatsAppBundle,
  type WebhooksBundle,
} from '../shared/bundles';
import { healthChecks, type Infra } from '../shared/infra';
import type { Limiter } from '../shared/rate-limit';
import { makeConsoleDeps, type ConsoleDeps } from './console-deps';
import { createReaderMailRepo, type ReaderMailRepo } from '../../models/news/reader-mail.repo';

export interface WebDeps extends Infra, KeysBundle, ReaderBundle, BillingBundle, WhatsAppBundle, QuizBundle, WebhooksBundle {
  accounts: AccountRepo;
  /** Staff members and their audit log (issue 38). */
  staff: StaffRepo;
  /** Readers' mail: its suppressed addresses, lifted when an address is proven again at sign-in (issue 40). */
  readerMail: ReaderMailRepo;
  mailer: Mailer;
  /** Sign-in and its codes, per address and per client IP (models/accounts). */
  signInLimits: { perAddress: Limiter; perIp: Limiter; verifyPerAddress: Limiter; verifyPerIp: Limiter };
  /** Keys the stored hashes of sign-in codes. */
  codeSecret: string;
  /** The dashboard's origin (scheme, host, port), for links and the same-origin check. */
  webOrigin: string;
  /** The clock (tests set it). */
  now: () => Date;
  /** The support, news and quiz services' dependencies, for the staff console's operations (./console.ts). */
  console: ConsoleDeps;
  /** Readers' browsers for alerts by Web Push (issue 40). */
  pushSubscriptions: PushSubscriptionRepo;
  /** Undefined when Web Push is not configured (the page hides its control; subscribing answers 503). */
  webPush: { publicKey: string; allowHosts: readonly string[]; production: boolean } | undefined;
  /** The operations overview (issue 38, item 6: operations/ops/overview.ts), shared by the callers of a moment. */
  opsOverview: () => Promise<OpsOverview>;
}

/** The SMTP server greets and answers EHLO (and accepts the credentials) within the probe's time. */
async function verifySmtp(config: Pick<Config, 'mail' | 'devServices'>): Promise<void> {
  const transport = nodemailer.createTransport(smtpOptions(smtpUrl(config), { connectionMs: PROBE_TIMEOUT_MS, greetingMs: PROBE_TIMEOUT_MS, socketMs: PROBE_TIMEOUT_MS }));
  try {
    await transport.verify();
  } finally {
    transport.close();
  }
}

const WINDOW_SEC = 15 * 60;

export function makeWebDeps(infra: Infra, overrides: Partial<Pick<WebDeps, 'mailer'>> = {}): WebDeps {
  const { config, mongo } = infra;
  const limiter = (name: string, points: number, what: string) =>
    windowLimiter(infra, { name: `web-${name}`, points, durationSec: WINDOW_SEC, message: `Too many ${what}: wait a few minutes and try again` });
  const web = config.web;
  const mailer = overrides.mailer ?? createMailer(config);
  infra.closers.push(() => mailer.close());
  const checks = [...healthChecks(infra), { name: 'smtp' as const, check: () => verifySmtp(config) }];
  return {
    ...infra,
    ...keysBundle(infra),
    ...readerBundle(infra),
    ...billingBundle(infra),
    ...whatsappBundle(infra),
    ...quizBundle(infra),
    ...webhooksBundle(infra),
    accounts: createAccountRepo(mongo.conn),
    pushSubscriptions: createPushSubscriptionRepo(mongo.conn),
    webPush: config.webPush.vapid ? { publicKey: config.webPush.vapid.publicKey, allowHosts: config.webPush.allowHosts, production: config.isProduction } : undefined,
    staff: createStaffRepo(mongo.conn),
    readerMail: createReaderMailRepo(mongo.conn),
    mailer,
    signInLimits: {
      perAddress: limiter('sign-in-address', web.signInPerAddress, 'sign-in codes asked for this address'),
      perIp: limiter('sign-in-ip', web.signInPerIp, 'sign-in codes asked from this network'),
      verifyPerAddress: limiter('verify-address', web.verifyPerAddress, 'codes tried for this address'),
      verifyPerIp: limiter('verify-ip', web.verifyPerIp, 'codes tried from this network'),
    },
    codeSecret: web.secret,
    webOrigin: new URL(web.url).origin,
    now: () => new Date(),
    console: makeConsoleDeps(infra),
    opsOverview: sharedOverview(() =>
      opsOverview({
        checks,
        services: (['news', 'support', 'quiz'] as const).map((name) => ({ name, url: config.http.publicUrls[name] })),
        fetch: (url, init) => fetch(url, init),
        temporal: infra.temporal,
        config,
      }),
    ),
  };
}
