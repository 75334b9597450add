/**
 * Processing a stored mail (operations/support/inbound-process.ts; issue 39) with fakes over the
 * fixtures of tests/fixtures/mail (README.md there). Authentication is mailauth's own, over a small
 * fake DNS zone (gmail.com publishes SPF for Google's 209.85.128.0/17 and a DMARC record): the
 * attacks first: a spoofed From with a ticket's subject, a forged bounce, a reply to a deleted
 * ticket.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createMailAuthenticator, type MailAuthResolver } from '../../models/infra/mail-auth';
import type { InboundMailDoc } from '../../models/support/inbound-mail.repo';
import type { AttachmentDoc, MessageDoc, TicketDoc } from '../../models/support/support.model';
import type { NewTicket } from '../../models/support/ticket.repo';
import { processInboundMail, type InboundProcessDeps } from '../../operations/support/inbound-process';

/** The secret the fixtures' Message-IDs were minted with (README.md). */
const FIXTURE_SECRET = 'fixture-secret-issue-39-not-for-production';
const DESK = 'support@localhost';
const TOKEN_123 = 'q4wbt7zk2mh5ra3xnyv6cdpe';
const GOOGLE_IP = '209.85.208.41';
const SPOOFER_IP = '198.51.100.77';

const ZONE: Record<string, string[][]> = {
  'TXT gmail.com': [['v=spf1 ip4:209.85.128.0/17 -all']],
  'TXT _dmarc.gmail.com': [['v=DMARC1; p=none; rua=mailto:dmarc@gmail.com']],
};
const resolver: MailAuthResolver = async (name: string, type: string) => {
  const answer = ZONE[`${type} ${name.toLowerCase()}`];
  if (answer) return answer;
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
};

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/mail', name));

function world() {
  const now = new Date('2026-11-26T14:00:00Z');
  const objects = new Map<string, Buffer>();
  const records = new Map<string, InboundMailDoc>();
  const tickets = new Map<number, TicketDoc>();
  const messages: MessageDoc[] = [];
  const attachments: AttachmentDoc[] = [];
  const bouncing = new Map<string, boolean>();
  const bounced: string[] = [];
  const queued: { ticketId: number; messageId: number }[] = [];
  const created: (NewTicket & { requestKey?: string | undefined })[] = [];
  let nextTicket = 500;
  let nextMessage = 9000;

  const ticket = (id: number, email: string, extra: Partial<TicketDoc> = {}): TicketDoc => {
    const t = { _id: id, main: 'Prêmios', issue: 'Não recebi meus prêmios', description: 'x', status: 'open', email, newsletter: null, wantReply: true, replied: null, tags: [], statusVersion: 1, statusBeforeDelete: null, deletedAt: null, firstAdminReplyAt: null, firstAdminReplyBy: null, resolvedAt: null, reopenCount: 0, lastMessageAt: null, createdAt: now, updatedAt: now, ...extra } as TicketDoc;
    tickets.set(id, t);
    return t;
  };
  ticket(123, 'maria.silva@gmail.com', { mailToken: TOKEN_123 });
  ticket(77, 'john.smith@outlook.com', { mailToken: 'x3m7kd2qpa5vn6hr4zt2ycwb' });

  const deps: InboundProcessDeps = {
    inbound: {
      get: async (id) => records.get(id) ?? null,
      settle: async (id, state, result) => {
        const r = records.get(id)!;
        if (r.state === 'processed' || r.state === 'failed') return false;
        records.set(id, { ...r, state, result });
        return true;
      },
    },
    raw: {
      read: async (key, maxBytes) => {
        const b = objects.get(key);
        if (!b) return null;
        if (b.length > maxBytes) throw new Error('longer than recorded');
        return b;
      },
    },
    files: { put: async (key, bytes) => void objects.set(key, bytes) },
    tickets: {
      findById: async (id: number) => tickets.get(id) ?? null,
      create: async (input: NewTicket, _by: string, requestKey?: string) => {
        const earlier = [...tickets.values()].find((t) => requestKey && t.requestKey === requestKey);
        if (earlier) return earlier;
        created.push({ ...input, requestKey });
        return ticket(nextTicket++, input.email, { main: input.main, issue: input.issue, description: input.description, ...(requestKey ? { requestKey } : {}) });
      },
      addMessage: async (t: Pick<TicketDoc, '_id'>, m: Parameters<InboundProcessDeps['tickets']['addMessage']>[1]) => {
        const earlier = messages.find((x) => x.dedupeKey === m.dedupeKey);
        if (earlier) return { message: earlier, added: false };
        const { email, ...rest } = m;
        const message = { _id: nextMessage++, ticketId: t._id, createdAt: now, ticketCreatedAt: now, ...rest, ...email } as MessageDoc;
        messages.push(message);
        return { message, added: true };
      },
    } as unknown as InboundProcessDeps['tickets'],
    attachments: {
      create: async (doc) => {
        const a = { ...doc, _id: attachments.length + 1 };
        attachments.push(a);
        return a as never;
      },
      forMessage: async (supportId, mensagemId) => attachments.filter((a) => a.supportId === supportId && a.mensagemId === mensagemId),
    },
    mail: {
      ticketByMailToken: async (token) => [...tickets.values()].find((t) => t.mailToken === token) ?? null,
      markBounced: async (mailId) => {
        bounced.push(mailId);
        return mailId.startsWith('<t91.') ? { ticketId: 91, messageId: 0 } : undefined;
      },
      markBouncing: async (address) => void bouncing.set(address, true),
      clearBouncing: async (address) => void (bouncing.has(address) && bouncing.set(address, false)),
    },
    outbox: { queue: async (target) => void queued.push(target) },
    authenticate: createMailAuthenticator({ resolver, mta: 'mx.localhost' }),
    desk: { address: DESK, secret: FIXTURE_SECRET },
    now: () => now,
  };

  let n = 0;
  /** Stores a raw mail and its record as the receiver does; answers its id. */
  const receive = (raw: Buffer | string, opts: { ip?: string; helo?: string; mailFrom?: string; rcptTo?: string[] } = {}): string => {
    const id = `rec-${++n}`;
    const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    const objectKey = `inbound-mail/2026/11/26/${id}.eml`;
    objects.set(objectKey, bytes);
    records.set(id, {
      _id: id,
      objectKey,
      size: bytes.length,
      envelope: { mailFrom: opts.mailFrom ?? 'maria.silva@gmail.com', rcptTo: opts.rcptTo ?? [DESK] },
      remote: { address: opts.ip ?? GOOGLE_IP, hostname: 'mail-ed1-f41.google.com', helo: opts.helo ?? 'mail-ed1-f41.google.com' },
      via: 'smtp',
      receivedAt: now,
      state: 'handed-over',
      handedOverAt: now,
      result: null,
      updatedAt: now,
    });
    return id;
  };
  return { deps, receive, records, tickets, messages, attachments, objects, bouncing, bounced, queued, created, ticket };
}

const simple = (from: string, subject: string, body: string, extra = '') =>
  `From: ${from}\r\nTo: ${DESK}\r\nSubject: ${subject}\r\nMessage-ID: <${Math.random().toString(36).slice(2)}@mail.gmail.com>\r\nDate: Thu, 26 Nov 2026 13:00:00 +0000\r\n${extra}Content-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`;

describe('attacks', () => {
  it('a spoofed From with the ticket\'s subject does not join the ticket: a new ticket, DMARC failure flagged, no acknowledgement (no backscatter)', async () => {
    const w = world();
    const id = w.receive(fixture('spoofed-from.eml'), { ip: SPOOFER_IP, helo: 'vps-4471.cheap-hosting.example' });
    const result = await processInboundMail(w.deps, id);
    expect(result).toMatchObject({ state: 'processed', kind: 'message', threadedBy: 'new', dmarc: 'fail', acknowledged: false });
    if (result.state !== 'processed' || result.kind !== 'message') throw new Error('unexpected');
    expect(result.ticketId).not.toBe(123);
    expect(w.messages.filter((m) => m.ticketId === 123)).toEqual([]);
    expect(w.messages[0]).toMatchObject({ dmarcFalhou: true, emailAuth: { spf: 'fail', dmarc: 'fail' } });
    expect(w.created[0]!.noAcknowledgement).toMatch(/DMARC/);
    expect(w.queued).toEqual([]);
  });

  it('a [#n] subject joins n only for its requester with DMARC passing: another (authenticated) sender opens a new ticket', async () => {
    const w = world();
    const other = await processInboundMail(w.deps, w.receive(simple('Eve <eve@gmail.com>', 'Re: [#123] me too', 'Mine neither.'), { mailFrom: 'eve@gmail.com' }));
    expect(other).toMatchObject({ threadedBy: 'new', dmarc: 'pass', acknowledged: true });
    const requester = await processInboundMail(w.deps, w.receive(simple('Maria Silva <maria.silva@gmail.com>', 'Re: [#123] still waiting', 'Still nothing.')));
    expect(requester).toMatchObject({ ticketId: 123, threadedBy: 'subject', dmarc: 'pass' });
  });

  it('behind an MTA of ours, SPF is about the client its Received header names, and only for a trusted relay', async () => {
    const RELAY = '10.0.0.5';
    const relayed = (subject: string, client: string) => `Received: from mail-ed1-f41.google.com (mail-ed1-f41.google.com [${client}]) by mx.localhost with ESMTPS; Thu, 26 Nov 2026 13:00:01 +0000\r\n${simple('Maria Silva <maria.silva@gmail.com>', subject, 'Still nothing.')}`;
    const w = world();
    w.deps.trustedRelay = (ip) => ip === RELAY;
    // The relay hands over Google's mail: SPF passes for Google's address, so DMARC does.
    expect(await processInboundMail(w.deps, w.receive(relayed('Re: [#123] still waiting', GOOGLE_IP), { ip: RELAY, helo: 'mx.localhost' }))).toMatchObject({ ticketId: 123, threadedBy: 'subject', dmarc: 'pass' });
    expect(w.messages.at(-1)!.emailAuth).toMatchObject({ spf: 'pass', dmarc: 'pass' });
    // A spoofer that writes Google's address in a Received header of its own, sending straight to us: not a relay, so SPF is about the spoofer.
    expect(await processInboundMail(w.deps, w.receive(relayed('Re: [#123] change my address', GOOGLE_IP), { ip: SPOOFER_IP }))).toMatchObject({ threadedBy: 'new', dmarc: 'fail' });
    // Through the relay, a spoofer's own address is what SPF sees.
    expect(await processInboundMail(w.deps, w.receive(relayed('Re: [#123] change it', SPOOFER_IP), { ip: RELAY }))).toMatchObject({ threadedBy: 'new', dmarc: 'fail' });
    // Without the relay trusted, SPF is about the relay itself, which gmail.com does not name.
    const untrusted = world();
    expect(await processInboundMail(untrusted.deps, untrusted.receive(relayed('Re: [#123] still waiting', GOOGLE_IP), { ip: RELAY }))).toMatchObject({ threadedBy: 'new', dmarc: 'fail' });
  });

  it('the requester\'s address alone (From, no DMARC pass) joins nothing', async () => {
    const w = world();
    // Sent from outside gmail.com's SPF, unsigned: DMARC fails.
    const result = await processInboundMail(w.deps, w.receive(simple('maria.silva@gmail.com', 'Re: [#123] hello', 'Hi.'), { ip: SPOOFER_IP }));
    expect(result).toMatchObject({ threadedBy: 'new', dmarc: 'fail' });
  });

  it('a forged delivery-status notification (about no mail of ours) marks nothing', async () => {
    const w = world();
    const forged = fixture('dsn-bounce.eml').toString('latin1').replace('<t91.m0.qjzg3glajuuf4grbesmc@localhost>', '<t91.m0.aaaaaaaaaaaaaaaaaaaa@localhost>');
    const result = await processInboundMail(w.deps, w.receive(forged, { mailFrom: '' }));
    expect(result).toMatchObject({ kind: 'bounce', bounced: null, bouncing: [] });
    expect(w.bouncing.size).toBe(0);
    expect(w.bounced).toEqual([]);
  });

  it('a reply to a deleted ticket is not added to it: a new ticket', async () => {
    const w = world();
    w.ticket(123, 'maria.silva@gmail.com', { mailToken: TOKEN_123, status: 'deleted', deletedAt: new Date() });
    const result = await processInboundMail(w.deps, w.receive(fixture('gmail-reply.eml'), { rcptTo: [`support+${TOKEN_123}@localhost`] }));
    expect(result).toMatchObject({ threadedBy: 'new' });
    expect(w.messages.filter((m) => m.ticketId === 123)).toEqual([]);
  });
});

describe('replies', () => {
  it('a Gmail reply lands in its ticket by the reply address, the quote stripped, the raw kept, once however often it runs', async () => {
    const w = world();
    const id = w.receive(fixture('gmail-reply.eml'), { rcptTo: [`support+${TOKEN_123}@localhost`] });
    const result = await processInboundMail(w.deps, id);
    expect(result).toMatchObject({ state: 'processed', ticketId: 123, threadedBy: 'token', dmarc: 'pass', acknowledged: false });
    const [message] = w.messages;
    expect(message).toMatchObject({ ticketId: 123, origem: 'usuario', canal: 'email', remetente: 'maria.silva@gmail.com', emailRaw: w.records.get(id)!.objectKey });
    expect(message!.emailMessageId).toMatch(/@mail\.gmail\.com>$/);
    expect(message!.conteudo).not.toMatch(/wrote:|^>/m);
    expect(message!.dmarcFalhou).toBeUndefined();
    // Settled: answered again as it was.
    expect(await processInboundMail(w.deps, id)).toEqual(result);
    // The same mail received twice (the sender retried after a lost 250): nothing added.
    await processInboundMail(w.deps, w.receive(fixture('gmail-reply.eml'), { rcptTo: [`support+${TOKEN_123}@localhost`] }));
    expect(w.messages.at(-1)).toMatchObject({ automated: false });
    expect(w.messages).toHaveLength(1);
  });

  it('threads by a verified Message-ID of ours when no reply address is among the recipients', async () => {
    const w = world();
    const result = await processInboundMail(w.deps, w.receive(fixture('outlook-reply.eml'), { mailFrom: 'john.smith@outlook.com', ip: '40.92.91.71' }));
    expect(result).toMatchObject({ ticketId: 77, threadedBy: 'message-id' });
    expect(w.messages[0]!.conteudo).not.toMatch(/From:|Sent:/);
  });

  it('an auto-reply is kept on the ticket, opens no acknowledgement, reopens nothing and does not clear a bouncing address', async () => {
    const w = world();
    w.bouncing.set('maria.silva@gmail.com', true);
    const result = await processInboundMail(w.deps, w.receive(fixture('auto-reply.eml'), { rcptTo: [DESK] }));
    expect(result).toMatchObject({ ticketId: 123, threadedBy: 'message-id', automated: expect.stringContaining('Auto-Submitted') });
    // Told to the repository as automated: it moves no status (ticket.repo addMessage).
    expect(w.messages.at(-1)).toMatchObject({ automated: true });
    expect(w.bouncing.get('maria.silva@gmail.com')).toBe(true);
    expect(w.queued).toEqual([]);
  });

  it("a person's mail from a bouncing address clears it", async () => {
    const w = world();
    w.bouncing.set('maria.silva@gmail.com', true);
    await processInboundMail(w.deps, w.receive(fixture('gmail-reply.eml'), { rcptTo: [`support+${TOKEN_123}@localhost`] }));
    expect(w.bouncing.get('maria.silva@gmail.com')).toBe(false);
  });

  it('a malformed message is processed without throwing, threaded by its reply address', async () => {
    const w = world();
    const result = await processInboundMail(w.deps, w.receive(fixture('malformed.eml'), { rcptTo: [`support+${TOKEN_123}@localhost`], ip: '192.0.2.44' }));
    expect(result).toMatchObject({ state: 'processed', ticketId: 123, threadedBy: 'token' });
    expect(w.messages[0]!.conteudo.length).toBeGreaterThan(0);
  });
});

describe('new tickets, files, bounces, failures', () => {
  it('a forward to the plain address opens a ticket and queues its acknowledgement; the PDF is stored with the message, the zip listed as refused', async () => {
    const w = world();
    const result = await processInboundMail(w.deps, w.receive(fixture('forwarded.eml')));
    expect(result).toMatchObject({ state: 'processed', threadedBy: 'new', acknowledged: true, refusedFiles: 1 });
    if (result.state !== 'processed' || result.kind !== 'message') throw new Error('unexpected');
    // The subject is the ticket's description; the body is its first message, not repeated.
    expect(w.created[0]).toMatchObject({ main: 'E-mail', issue: 'Outro', description: 'Fwd: Seu pedido #88231 foi entregue', email: 'maria.silva@gmail.com', wantReply: true, noAcknowledgement: undefined });
    expect(w.messages[0]!.conteudo).not.toBe(w.created[0]!.description);
    // Keyed by the sender (the ticket) and the ticket (the message) with the Message-ID: another sender's mail with that id is another mail.
    const mid = '<CAFk2x7Qs9tUv0wXy1zAb2Cd3Ef4Gh5Ij6Kl7Mn8Op9Qr0St1Uv@mail.gmail.com>';
    expect(w.created[0]!.requestKey).toBe(`email:maria.silva@gmail.com:${mid}`);
    expect(w.messages[0]!.dedupeKey).toBe(`email:${result.ticketId}:${mid}`);
    expect(w.queued).toEqual([{ ticketId: result.ticketId, messageId: 0 }]);
    expect(w.attachments).toEqual([expect.objectContaining({ supportId: result.ticketId, mensagemId: result.messageId, tipoArquivo: 'application/pdf' })]);
    expect(w.objects.has(w.attachments[0]!.caminhoArquivo)).toBe(true);
    expect(w.messages[0]!.arquivosRecusados).toEqual([expect.objectContaining({ motivo: 'type-not-allowed', nome: expect.stringMatching(/\.zip$/) })]);
    // Run again after a crash before settling: no second ticket, message or file.
    const id = [...w.records.keys()][0]!;
    w.records.set(id, { ...w.records.get(id)!, state: 'handed-over', result: null });
    await processInboundMail(w.deps, id);
    expect([w.created.length, w.messages.length, w.attachments.length]).toEqual([1, 1, 1]);
  });

  it('a bounce of our acknowledgement marks it bounced and the address bouncing; no ticket message, no acknowledgement', async () => {
    const w = world();
    const result = await processInboundMail(w.deps, w.receive(fixture('dsn-bounce.eml'), { mailFrom: '' }));
    expect(result).toMatchObject({ state: 'processed', kind: 'bounce', bounced: { ticketId: 91, messageId: 0 }, bouncing: ['nobody.here@example.com'] });
    expect(w.bounced).toEqual(['<t91.m0.qjzg3glajuuf4grbesmc@localhost>']);
    expect(w.bouncing.get('nobody.here@example.com')).toBe(true);
    expect([w.messages.length, w.created.length, w.queued.length]).toEqual([0, 0, 0]);
  });

  it('a missing object fails the record (with why), once', async () => {
    const w = world();
    const id = w.receive(fixture('gmail-reply.eml'));
    w.objects.clear();
    expect(await processInboundMail(w.deps, id)).toEqual({ state: 'failed', reason: expect.stringContaining('missing') });
    expect(w.records.get(id)!.state).toBe('failed');
    expect(w.messages).toEqual([]);
  });
});
