/**
 * Mailgun's inbound webhook (issue 39): the second way requesters' mail reaches the desk, beside
 * the SMTP/LMTP receiver (api/mail/). A Mailgun route's `forward("https://…/support/inbound/mailgun/mime")`
 * posts the raw message (`body-mime`: Mailgun posts it only to a URL ending in `mime`) with the
 * envelope and its signature. The route reads its own body (multipart/form-data, or a urlencoded
 * form), holding `body-mime` up to the inbound size limit and dropping the rest, then calls
 * operations/support/inbound-mailgun.ts, which checks the signature before anything else and
 * stores the message as the receiver does before the 200 (docs/decisions.md "Mailgun's inbound
 * webhook"). Nothing a caller sends is executed or fetched.
 */
import Busboy from 'busboy';
import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { AppError } from '../../models/errors';
import { acceptMailgunMail, type MailgunDelivery } from '../../operations/support/inbound-mailgun';
import { publicRoute, type AuthPolicy } from '../shared/auth';
import { reply, routeFactory } from '../shared/route';
import { MailgunInboundAnswer, MailgunInboundBody } from './contracts';
import type { SupportDeps } from './deps';
import { mailgunDeliveryExample, mailgunReceivedExample } from './examples';

const route = routeFactory<SupportDeps>();

/** The fields read (besides `body-mime`); the others Mailgun sends (`from`, `subject`…) are ignored. */
const FIELDS = ['recipient', 'sender', 'timestamp', 'token', 'signature'] as const;
type Field = (typeof FIELDS)[number];
const isField = (name: string): name is Field => (FIELDS as readonly string[]).includes(name);
/** The longest value of such a field. */
const FIELD_BYTES = 64 * 1024;

/**
 * The signature is in the body, so it is checked once the body is read (the operation's first
 * step); before that, only that this deployment has a signing key (503 without one).
 */
const mailgunSigned: AuthPolicy<string> = {
  ...publicRoute,
  describe: 'public; signed by Mailgun in the body (timestamp, token and signature: HMAC-SHA256 with MAILGUN_WEBHOOK_SIGNING_KEY)',
  signed: true,
  authenticate(_ctx, _services, rawDeps) {
    const key = (rawDeps as SupportDeps).config.support.mail.mailgunSigningKey;
    if (!key) {
      return Promise.reject(
        new AppError('DEPENDENCY_UNAVAILABLE', "Mailgun's inbound webhook is not configured on this deployment (MAILGUN_WEBHOOK_SIGNING_KEY is not set)", { details: { dependency: 'mailgun' } }),
      );
    }
    return Promise.resolve(key);
  },
};

const malformed = () => new AppError('VALIDATION_FAILED', 'Malformed form body');

/**
 * A form value's bytes. Values are decoded as latin1 (busboy's `defCharset`), which keeps every byte
 * of a urlencoded value and of a part that declares no charset (form encoders write none); a part declaring
 * another charset was decoded with it, and is written back as UTF-8 when it holds characters
 * beyond latin1 (exact for UTF-8 text, and for 7-bit mail whatever it declares).
 */
const bytesOf = (value: string): Buffer => Buffer.from(value, /[\u0100-\uffff]/.test(value) ? 'utf8' : 'latin1');

/**
 * Reads one delivery: the fields above (each at most 64 KiB) and `body-mime`'s bytes up to
 * `maxBytes` (past it: `tooLarge`, the rest read and dropped), whether it comes as a text part, a
 * file part or a urlencoded value. The request is read at most to three times the limit (a
 * urlencoded message's worst case): past that, reading stops and the delivery is too large (or
 * unsigned, if its signature had not come yet).
 */
async function readDelivery(ctx: Context, maxBytes: number): Promise<MailgunDelivery> {
  const multipart = ctx.is('multipart/form-data') === 'multipart/form-data';
  const urlencoded = !multipart && ctx.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
  if (!multipart && !urlencoded) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the delivery as Mailgun does: multipart/form-data (or application/x-www-form-urlencoded) with body-mime');
  let busboy: Busboy.Busboy;
  try {
    busboy = Busboy({
      headers: ctx.req.headers,
      defCharset: 'latin1',
      limits: { fields: 50, parts: 60, files: 5, fieldSize: maxBytes + 1, fileSize: maxBytes },
    });
  } catch {
    throw malformed();
  }
  const fields: Partial<Record<Field, string>> = {};
  let mime: NonNullable<MailgunDelivery['mime']> | undefined;
  let failure: AppError | undefined;
  const twice = (name: string) => new AppError('VALIDATION_FAILED', `Invalid request: ${name} was sent more than once`);

  busboy.on('field', (name, value, info) => {
    if (name === 'body-mime') {
      if (mime) return void (failure ??= twice(name));
      const bytes = bytesOf(value);
      mime = info.valueTruncated || bytes.length > maxBytes ? { chunks: [], bytes: bytes.length, tooLarge: true } : { chunks: [bytes], bytes: bytes.length, tooLarge: false };
      return;
    }
    if (!isField(name)) return;
    if (Object.hasOwn(fields, name)) return void (failure ??= twice(name));
    const text = bytesOf(value);
    if (text.length > FIELD_BYTES) return void (failure ??= new AppError('VALIDATION_FAILED', `Invalid request: ${name} is longer than ${FIELD_BYTES} bytes`));
    fields[name] = text.toString('utf8');
  });
  let fileStream: Readable | undefined;
  busboy.on('file', (name, stream) => {
    fileStream = stream;
    // A part cut short by a malformed body: the request fails with 400, never the process.
    stream.on('error', () => void (failure ??= malformed()));
    // Only body-mime is read as a file (Mailgun's attachments are inside it); other files are dropped.
    if (name !== 'body-mime' || mime) {
      if (name === 'body-mime') failure ??= twice(name);
      stream.resume();
      return;
    }
    const m: NonNullable<MailgunDelivery['mime']> = { chunks: [], bytes: 0, tooLarge: false };
    mime = m;
    stream.on('data', (chunk: Buffer) => {
      m.bytes += chunk.length;
      if (!m.tooLarge) m.chunks.push(chunk);
    });
    // Past fileSize busboy drops the rest: nothing of the message is kept.
    stream.on('limit', () => {
      m.tooLarge = true;
      m.chunks = [];
    });
  });
  for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) busboy.on(limit, () => void (failure ??= new AppError('VALIDATION_FAILED', 'Invalid request: too many fields')));

  const rawLimit = 3 * maxBytes + 1024 * 1024;
  let rawBytes = 0;
  await new Promise<void>((resolve, reject) => {
    busboy.once('close', resolve);
    // `on`, not `once`: the parser may report more than one error for a body.
    busboy.on('error', () => {
      failure ??= malformed();
      // The body ended inside body-mime: its stream would wait for the rest for ever.
      if (fileStream && !fileStream.destroyed) fileStream.destroy(failure);
      ctx.req.unpipe(busboy);
      ctx.req.resume();
      reject(failure);
    });
    ctx.req.on('data', (chunk: Buffer) => {
      rawBytes += chunk.length;
      if (rawBytes <= rawLimit) return;
      // Too much to be a message within the limit: stop reading (the rest is dropped) and answer.
      ctx.req.unpipe(busboy);
      ctx.req.removeAllListeners('data');
      ctx.req.resume();
      mime = { chunks: [], bytes: rawBytes, tooLarge: true };
      resolve();
    });
    // A client gone before the end of its body: nothing to answer, and nothing is held for it.
    ctx.req.once('close', () => {
      if (ctx.req.complete) return;
      failure ??= malformed();
      mime = undefined;
      reject(failure);
    });
    ctx.req.pipe(busboy);
  });
  if (failure) throw failure;
  return { ...fields, mime };
}

export const mailgunRoutes = [
  route({
    method: 'post',
    path: '/support/inbound/mailgun/mime',
    summary: "Mailgun's inbound webhook: a requester's mail",
    description:
      'A Mailgun route\'s `forward("https://<support host>/support/inbound/mailgun/mime")` posts each mail to the desk here (Mailgun posts the raw message, `body-mime`, only to a URL ending in `mime`). ' +
      'The signature (`timestamp`, `token`, `signature`: hex HMAC-SHA256 of timestamp and token with MAILGUN_WEBHOOK_SIGNING_KEY) is checked first: missing, wrong or more than 9 hours from now, 401. ' +
      "Then `body-mime` (missing: 400; larger than SUPPORT_MAIL_INBOUND_MAX_BYTES: 406, which Mailgun does not retry) and the recipients (each the desk's address or its +tag form, else 406); a delivery whose token was used before is answered as the first was (200, the same record; nothing stored again), or 409 while the first is still being stored. " +
      'A message taken is stored (object storage, then its inbound record) before the 200, then processed like mail the SMTP receiver takes: it lands in the ticket of the reply address it was sent to, or opens one. ' +
      'Storage unavailable: 503, nothing kept (Mailgun retries). Without a signing key configured, 503. Every refusal stores nothing.',
    tags: ['inbound mail'],
    auth: mailgunSigned,
    bodyType: 'multipart/form-data',
    body: MailgunInboundBody,
    response: MailgunInboundAnswer,
    errors: [401, 406, 409, 503],
    example: { body: mailgunDeliveryExample, response: mailgunReceivedExample, message: 'Mensagem recebida' },
    handler: async ({ auth: signingKey, ctx, deps }) => {
      const { maxBytes } = deps.config.support.mail.inbound;
      const delivery = await readDelivery(ctx, maxBytes);
      const { id, repeated } = await acceptMailgunMail(deps.mailgun, { delivery, signingKey, deskAddress: deps.config.support.mail.address, maxBytes });
      return reply({ message: repeated ? 'Mensagem já recebida' : 'Mensagem recebida', data: { received: true as const, id } });
    },
  }),
];
