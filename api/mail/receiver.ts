/**
 * Support by e-mail (issue 39), the receiver of requesters' mail: two listeners built on
 * smtp-server, SMTP (an MTA or a forwarder relays to it) and LMTP (an MTA in front delivers to
 * it). It is an MX-like receiver, not a submission server:
 * - no AUTH, and no STARTTLS: TLS from the Internet ends at the MTA in front (production), and
 *   nothing offers it in development (smtp-server's built-in certificate is a published test key);
 * - RCPT TO: the desk's address and its `local+anything@domain` only (case-insensitive); anything
 *   else is 550 5.1.1, so it relays for no one; at most 50 recipients (the 51st: 452 4.5.3);
 * - SIZE announced in EHLO; a declared SIZE over it is 552 5.3.4 at MAIL FROM, and a message
 *   that turns out larger is 552 5.3.4 after DATA, with nothing stored;
 * - DATA: the message is stored (MinIO) and recorded (MongoDB) before 250 2.6.0 "queued as <id>";
 *   when either cannot be written, 451 4.3.0 (the sender keeps it and retries);
 * - LMTP answers once per recipient, each with the message's one result.
 * Logs carry ids, sizes, counts and addresses of clients, never message content or mailboxes.
 */
import os from 'node:os';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../models/errors';
import type { InboundMailVia } from '../../models/support/inbound-mail.repo';
import { isDeskRecipient } from '../../models/support/mail-in.rules';
import { acceptInboundMail, type InboundMailDeps } from '../../operations/support/inbound-mail';

export type MailReceiverDeps = InboundMailDeps;

export interface MailReceiverOptions {
  host: string;
  /** 0 picks a free port (tests); listen() says which. */
  smtpPort: number;
  lmtpPort: number;
  /** The largest message accepted (bytes), announced as SIZE. */
  maxBytes: number;
  /** The desk's plain address (local@domain): its own and its local+tag@domain are accepted. */
  deskAddress: string;
  /** The name in the greeting and the EHLO reply (default: this host's name). */
  name?: string;
  /** Connections at once, per listener (past it: 421). Each message in flight holds up to one 5 MiB part. */
  maxClients?: number;
  /** Recipients of one message (past it: 452 4.5.3). */
  maxRecipients?: number;
  /** A client silent this long while we wait for it is disconnected (421). */
  socketTimeoutMs?: number;
  /** On close, how long connections may go on (a DATA in flight finishes) before they are cut. */
  closeTimeoutMs?: number;
}

export interface MailReceiver {
  smtp: SMTPServer;
  lmtp: SMTPServer;
  /** Starts both listeners; resolves with the ports they listen on. */
  listen(): Promise<{ smtpPort: number; lmtpPort: number }>;
  /** Stops taking connections, lets messages in flight finish (up to closeTimeoutMs), then waits for their storing to end. */
  close(): Promise<void>;
}

export const MAX_RECIPIENTS = 50;
const BANNER = 'support desk mail receiver';

/** An error smtp-server answers with `responseCode` (its enhanced status code follows from the code). */
function reply(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

export function createMailReceiver(deps: MailReceiverDeps, options: MailReceiverOptions): MailReceiver {
  const { logger } = deps;
  const inFlight = new Set<Promise<unknown>>();

  const remoteOf = (session: SMTPServerSession) => ({
    address: session.remoteAddress,
    hostname: session.clientHostname || `[${session.remoteAddress}]`,
    // false until a HELO/EHLO/LHLO (typed as a string).
    helo: typeof session.hostNameAppearsAs === 'string' ? session.hostNameAppearsAs : '',
  });

  const build = (via: Extract<InboundMailVia, 'smtp' | 'lmtp'>): SMTPServer => {
    const server = new SMTPServer({
      lmtp: via === 'lmtp',
      name: options.name ?? os.hostname(),
      banner: BANNER,
      // An MX-like receiver: no submission (AUTH), and TLS ends at the MTA in front.
      disabledCommands: ['AUTH', 'STARTTLS'],
      authOptional: true,
      size: options.maxBytes,
      rejectOversized: true,
      maxRecipients: options.maxRecipients ?? MAX_RECIPIENTS,
      maxClients: options.maxClients ?? 50,
      socketTimeout: options.socketTimeoutMs ?? 60_000,
      closeTimeout: options.closeTimeoutMs ?? 10_000,
      hideENHANCEDSTATUSCODES: false,
      // The processing reads what it needs from the message; a reverse lookup per connection
      // would only add a DNS wait (and its failures) before the greeting.
      disableReverseLookup: true,
      logger: false,

      onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void) {
        if (isDeskRecipient(address.address, options.deskAddress)) return callback();
        logger.info({ via, remote: session.remoteAddress }, 'inbound mail: recipient refused (not the desk)');
        callback(reply(550, 'Error: no such mailbox here; this server takes mail for the support desk only'));
      },

      onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
        const { mailFrom, rcptTo } = session.envelope;
        const task = acceptInboundMail(deps, {
          stream,
          envelope: { mailFrom: mailFrom ? mailFrom.address : '', rcptTo: rcptTo.map((r) => r.address) },
          remote: remoteOf(session),
          via,
          maxBytes: options.maxBytes,
        }).then(
          (id) => callback(null, `OK: queued as ${id}`),
          (err: unknown) => {
            if (err instanceof AppError && err.code === 'PAYLOAD_TOO_LARGE') {
              logger.info({ via, remote: session.remoteAddress, bytes: stream.byteLength }, 'inbound mail: refused, larger than the limit');
              return callback(reply(552, `Error: message exceeds fixed maximum message size ${options.maxBytes}`));
            }
            if (stream.destroyed && (err as { code?: unknown }).code === 'ECONNECTION') {
              // The client left in the middle of DATA: there is no one to answer, and nothing was kept.
              logger.info({ via, remote: session.remoteAddress }, 'inbound mail: the client left before the end of DATA; nothing stored');
              return callback(reply(451, 'Error: the message was not received in full'));
            }
            const expected = err instanceof AppError && err.code === 'DEPENDENCY_UNAVAILABLE';
            logger[expected ? 'warn' : 'error']({ via, remote: session.remoteAddress, err }, 'inbound mail: not stored; asked the sender to retry (451)');
            callback(reply(451, 'Error: the message could not be stored now, please retry later'));
          },
        );
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
      },
    });
    // Connection and listener errors come here; without a listener they would end the process.
    server.on('error', (err: Error & { remoteAddress?: string }) => logger.warn({ via, remote: err.remoteAddress, err: err.message }, 'inbound mail: connection error'));
    return server;
  };

  const smtp = build('smtp');
  const lmtp = build('lmtp');

  const listenOne = (server: SMTPServer, port: number) =>
    new Promise<number>((resolve, reject) => {
      const net = server.server;
      const failed = (err: Error) => reject(err);
      net.once('error', failed);
      server.listen(port, options.host, () => {
        net.off('error', failed);
        resolve((net.address() as AddressInfo).port);
      });
    });
  const closeOne = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

  return {
    smtp,
    lmtp,
    async listen() {
      const [smtpPort, lmtpPort] = await Promise.all([listenOne(smtp, options.smtpPort), listenOne(lmtp, options.lmtpPort)]);
      logger.info({ host: options.host, smtpPort, lmtpPort, maxBytes: options.maxBytes }, 'mail receiver listening');
      return { smtpPort, lmtpPort };
    },
    async close() {
      await Promise.all([closeOne(smtp), closeOne(lmtp)]);
      // A connection cut at the close timeout may leave its message still being stored or cleaned up.
      await Promise.allSettled([...inFlight]);
    },
  };
}
