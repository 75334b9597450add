/**
 * What the dashboard's routes use: the news service's collaborators (keys, usage, billing,
 * preferences, entities, WhatsApp), the quiz store (streak and quizzes), the accounts and the
 * mailer. Built once per process; the use cases themselves are the shared operations.
 */
import { createAccountRepo, type AccountRepo } from '../../models/accounts/account.repo';
import { createMailer, type Mailer } from '../../models/infra/mail';
import type { QuizStore } from '../../models/quiz/operations/reader-days';
import { makeNewsDeps, type NewsDeps } from '../news/deps';
import { createQuizStore } from '../quiz/deps';
import type { Infra } from '../shared/infra';
import { createMongoLimiter, type Limiter } from '../shared/rate-limit';

export interface WebDeps extends NewsDeps {
  quiz: QuizStore;
  accounts: AccountRepo;
  mailer: Mailer;
  /** Sign-in and its codes, per address and per client IP (models/accounts). */
  signInLimits: { perAddress: Limiter; perIp: Limiter; verifyPerAddress: Limiter; verifyPerIp: Limiter };
  /** Keys the stored hashes of sign-in codes. */
  codeSecret: string;
  /** The dashboard's origin (scheme, host, port), for links and the same-origin check. */
  webOrigin: string;
}

const WINDOW_SEC = 15 * 60;

export function makeWebDeps(infra: Infra, overrides: Partial<Pick<WebDeps, 'mailer'>> = {}): WebDeps {
  const { config, mongo } = infra;
  const limiter = (name: string, points: number, what: string) =>
    createMongoLimiter(mongo.ready, config.mongo.db, {
      name: `web-${name}`,
      points,
      durationSec: WINDOW_SEC,
      syncMs: config.rateLimit.syncMs,
      message: `Too many ${what}: wait a few minutes and try again`,
    });
  const web = config.web;
  const mailer = overrides.mailer ?? createMailer(config);
  infra.closers.push(() => mailer.close());
  return {
    ...makeNewsDeps(infra),
    quiz: createQuizStore(mongo.conn),
    accounts: createAccountRepo(mongo.conn),
    mailer,
    signInLimits: {
      perAddress: limiter('sign-in-address', web.signInPerAddress, 'sign-in codes asked for this address'),
      perIp: limiter('sign-in-ip', web.signInPerIp, 'sign-in codes asked from this network'),
      verifyPerAddress: limiter('verify-address', web.verifyPerAddress, 'codes tried for this address'),
      verifyPerIp: limiter('verify-ip', web.verifyPerIp, 'codes tried from this network'),
    },
    codeSecret: web.secret,
    webOrigin: new URL(web.url).origin,
  };
}
