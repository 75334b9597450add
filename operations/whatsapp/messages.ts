/**
 * WhatsApp, the use cases the API serves (issue 15; docs/decisions.md "WhatsApp"): receive a
 * signed delivery from Meta (messages stored once by id, then handed to their phone's conversation
 * by relay-messages.ts; delivery statuses stored on the messages they are about), link the phone
 * a log-in code was sent to, to the account that enters it, and unlink an account's phone.
 */
import { AppError } from '../../models/errors';
import type { UserRepo } from '../../models/users/user.repo';
import { codeMatches } from '../../models/whatsapp/login-code.rules';
import { readPayload, type WebhookPayload } from '../../models/whatsapp/webhook.rules';
import type { WhatsAppRepo } from '../../models/whatsapp/whatsapp.repo';
import type { InboundRef } from './relay-messages';

export interface WhatsAppDeps {
  whatsapp: WhatsAppRepo;
  users: Pick<UserRepo, 'ensure'>;
  now: () => Date;
}

/** Stores a verified delivery and gives each message not handed over yet to `handOver` (after the answer). */
export async function receiveDelivery(deps: WhatsAppDeps, payload: WebhookPayload, handOver: (m: InboundRef) => void) {
  const { messages, statuses } = readPayload(payload);
  let duplicates = 0;
  const now = deps.now();
  for (const m of messages) {
    const { fresh, stored } = await deps.whatsapp.recordInbound(m, now);
    if (!fresh) duplicates += 1;
    if (!stored.forwardedAt) handOver({ id: m.id, phone: m.phone, sentAt: m.sentAt });
  }
  let stored = 0;
  for (const s of statuses) if (await deps.whatsapp.recordStatus(s)) stored += 1;
  return { messages: messages.length, duplicates, statuses: stored };
}

/** The phone as shown back to its owner. */
export const maskPhone = (phone: string) => `${phone.slice(0, 4)}${'•'.repeat(Math.max(0, phone.length - 6))}${phone.slice(-2)}`;

/**
 * Links the phone a log-in code was sent to, to the account entering it: a code works once, for
 * 10 minutes, with 5 tries (404 none waiting, 400 expired or wrong, 429 too many tries).
 */
export async function linkPhone(deps: WhatsAppDeps, input: { userId: string; email: string | undefined; code: string }): Promise<{ phone: string }> {
  const outcome = await deps.whatsapp.useLoginCode(input.userId, deps.now(), (hash) => codeMatches(input.userId, input.code, hash));
  if ('refused' in outcome) {
    switch (outcome.refused) {
      case 'none':
        throw new AppError('NOT_FOUND', 'No log-in code is waiting for this account: send "entrar" and your e-mail on WhatsApp first');
      case 'expired':
        throw new AppError('VALIDATION_FAILED', 'The code has expired: send "entrar" on WhatsApp for a new one', { details: [{ path: 'body.code', message: 'expired' }] });
      case 'tries':
        throw new AppError('RATE_LIMITED', 'Too many wrong codes: send "entrar" on WhatsApp for a new one');
      case 'wrong':
        throw new AppError('VALIDATION_FAILED', 'Wrong code', { details: [{ path: 'body.code', message: 'does not match the code sent' }] });
    }
  }
  await deps.users.ensure(input.userId, input.email);
  await deps.whatsapp.link(outcome.phone, input.userId, deps.now());
  return { phone: outcome.phone };
}

/**
 * Unlinks the phone linked to the account (issue 35): the account's own, whichever it is (404
 * when none is); another account's phone is out of its reach. The phone becomes a guest again.
 */
export async function unlinkPhone(deps: Pick<WhatsAppDeps, 'whatsapp'>, input: { userId: string }): Promise<{ phone: string }> {
  const phone = await deps.whatsapp.unlink(input.userId);
  if (!phone) throw new AppError('NOT_FOUND', 'No WhatsApp phone is linked to this account');
  return { phone };
}
