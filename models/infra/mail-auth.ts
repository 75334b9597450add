/**
 * The authentication of a received mail (issue 39): mailauth's SPF (the client's IP, HELO and MAIL
 * FROM), DKIM and DMARC (for the From domain), reduced to their result words. DNS is the outside
 * world: production uses the system's resolver, tests a resolver over a small fake zone.
 */
import { authenticate, type AuthenticateOptions } from 'mailauth';

export interface MailAuthResults {
  spf: string;
  dkim: string;
  dmarc: string;
}

export type MailAuthResolver = NonNullable<AuthenticateOptions['resolver']>;

/**
 * The authentication port of operations/support/inbound-process.ts. `mta` names us in the results.
 * An unknown client (`ip` empty: mail from Mailgun's webhook whose Received header named none) is
 * not SPF-checked: `none`, where mailauth would say `temperror` (no IP to check); DKIM and DMARC are
 * read from the message as always.
 */
export function createMailAuthenticator(options: { resolver?: MailAuthResolver; mta?: string } = {}) {
  return async (raw: Buffer, client: { ip: string; helo: string; sender: string }): Promise<MailAuthResults> => {
    const res = await authenticate(raw, {
      ip: client.ip,
      helo: client.helo,
      sender: client.sender,
      ...(options.mta ? { mta: options.mta } : {}),
      ...(options.resolver ? { resolver: options.resolver } : {}),
      disableArc: true,
      disableBimi: true,
    });
    const dkim = res.dkim.results.find((r) => r.status.result === 'pass') ?? res.dkim.results[0];
    return {
      spf: res.spf && client.ip ? res.spf.status.result : 'none',
      dkim: dkim ? dkim.status.result : 'none',
      dmarc: res.dmarc ? res.dmarc.status.result : 'none',
    };
  };
}
