/**
 * What a requester's mail means for the desk (models/support/mail-in.rules.ts; issue 39), on the
 * fixtures of tests/fixtures/mail (README.md there: what each one is and which client it copies),
 * parsed by postal-mime as the receiver parses them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import PostalMime, { type Attachment, type Email } from 'postal-mime';
import { MAX_ATTACHMENT_BYTES } from '../../models/support/attachment.rules';
import { messageIdOf, ourMessageId } from '../../models/support/mail-ids';
import {
  attachmentVerdicts,
  automatedReason,
  bounceOf,
  isForwardSubject,
  MAX_INPUT_CHARS,
  messageIdsIn,
  threadCandidates,
  ticketNumberOf,
  visibleReply,
  type ThreadCandidate,
} from '../../models/support/mail-in.rules';

/** The secret the fixtures' Message-IDs were minted with (README.md). */
const FIXTURE_SECRET = 'fixture-secret-issue-39-not-for-production';
const desk = { address: 'support@localhost' };
const verify = (id: string) => ourMessageId(FIXTURE_SECRET, 'localhost', id);
const TOKEN_123 = 'q4wbt7zk2mh5ra3xnyv6cdpe';

const raw = (name: string) => readFileSync(path.join(__dirname, '../fixtures/mail', name));
const parse = (name: string, crlf = false): Promise<Email> => {
  const bytes = raw(name);
  return PostalMime.parse(crlf ? Buffer.from(bytes.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1') : bytes);
};
/** The envelope's recipients as the receiver sees them: here, the To addresses. */
const recipientsOf = (email: Email) => (email.to ?? []).flatMap((a) => (a.address ? [a.address] : (a.group ?? []).map((g) => g.address)));
const threadOf = (email: Email) => threadCandidates({ recipients: recipientsOf(email), inReplyTo: email.inReplyTo, references: email.references, subject: email.subject }, desk, verify);
const withHeaders = (headers: Record<string, string>, from = 'maria.silva@gmail.com'): Pick<Email, 'headers' | 'from'> => ({
  headers: Object.entries(headers).map(([k, value]) => ({ key: k.toLowerCase(), originalKey: k, value })),
  from: { name: '', address: from },
});

/** The staff reply every reply fixture quotes: none of it may be left in the requester's text. */
const QUOTED_STAFF_TEXT = ['Verificamos seu cadastro', 'Rua das Flores', 'Pode confirmar', 'Chamado #123', 'sua resposta chega ao chamado', 'Your prize was shipped', 'Hello John'];
const expectNoQuote = (text: string) => {
  for (const q of QUOTED_STAFF_TEXT) expect(text).not.toContain(q);
  expect(text).not.toMatch(/^>/m);
  expect(text).not.toMatch(/wrote:|escreveu:|^(From|Sent|De|Enviado):/m);
};

describe('visibleReply: the text the requester wrote', () => {
  it('Gmail: keeps the reply and strips "On … wrote:" (wrapped onto two lines) and the > lines', async () => {
    const r = visibleReply(await parse('gmail-reply.eml'));
    expect(r).toMatchObject({ quoted: true, forwarded: false, source: 'text', cut: false });
    expect(r.text).toBe('Hi Ana,\n\nYes, the address is correct, but the package never arrived. Could you send me\nthe tracking code?\n\nThanks,\nMaria');
    expectNoQuote(r.text);
  });

  it('Gmail in Portuguese: strips "Em qui., 26 de nov. de 2026 às 10:02, … escreveu:" and the "-- " signature', async () => {
    const email = await parse('gmail-reply-pt.eml');
    expect(email.text).toContain('Em qui., 26 de nov. de 2026 às 10:02, Newsletter Support <');
    const r = visibleReply(email);
    expect(r.quoted).toBe(true);
    expect(r.text).toBe('Oi Ana,\n\nO endereço está certo, mas o pacote não chegou. Vocês podem me mandar o código\nde rastreio?\n\nObrigada!');
    expect(r.text).not.toContain('São Paulo');
    expectNoQuote(r.text);
  });

  it('Gmail, read from its HTML: the gmail_quote and the gmail_signature are removed', async () => {
    const en = visibleReply({ html: (await parse('gmail-reply.eml')).html });
    expect(en).toMatchObject({ quoted: true, source: 'html' });
    expect(en.text).toBe('Hi Ana,\n\nYes, the address is correct, but the package never arrived. Could you send me the tracking code?\n\nThanks,\nMaria');
    const pt = visibleReply({ html: (await parse('gmail-reply-pt.eml')).html });
    expect(pt.text).toBe('Oi Ana,\n\nO endereço está certo, mas o pacote não chegou. Vocês podem me mandar o código de rastreio?\n\nObrigada!');
    expectNoQuote(pt.text);
  });

  it('Outlook (HTML only): strips divRplyFwdMsg, its "From: Sent: To: Subject:" block and the quoted message after it', async () => {
    const email = await parse('outlook-reply.eml');
    expect(email.text).toBeUndefined();
    expect(email.html).toContain('id="divRplyFwdMsg"');
    const r = visibleReply(email);
    expect(r).toMatchObject({ quoted: true, forwarded: false, source: 'html' });
    expect(r.text).toBe('Hello Ana,\n\nI asked the doorman and nothing arrived for me last week. Could you please resend the prize?\n\nJohn');
    expectNoQuote(r.text);
  });

  it('Outlook as text (desktop, or its text alternative): the "From: … Sent: …" block under its rule is cut, in English and Portuguese', () => {
    const en = visibleReply({ text: 'Thanks, got it.\n\n________________________________\nFrom: Newsletter Support <support+x@localhost>\nSent: Thursday, November 26, 2026 10:02 AM\nTo: John Smith <john@outlook.com>\nSubject: Re: [#77] Prêmios\n\nHello John,\nYour prize was shipped.' });
    expect(en).toMatchObject({ text: 'Thanks, got it.', quoted: true });
    const pt = visibleReply({ text: 'Obrigado!\n\nDe: Newsletter Support <support+x@localhost>\nEnviado: quinta-feira, 26 de novembro de 2026 10:02\nPara: João <joao@outlook.com>\nAssunto: Re: [#77] Prêmios\n\nOlá João,\nVerificamos seu cadastro.' });
    expect(pt).toMatchObject({ text: 'Obrigado!', quoted: true });
    const original = visibleReply({ text: 'Resolved, thanks.\n\n-----Original Message-----\nFrom: support@localhost\nHello John' });
    expect(original).toMatchObject({ text: 'Resolved, thanks.', quoted: true });
  });

  it('Apple Mail: strips "On 26 Nov 2026, at 10:02, … wrote:" in text and the cite blockquote in HTML', async () => {
    const email = await parse('apple-mail-reply.eml');
    const r = visibleReply(email);
    expect(r).toMatchObject({ quoted: true, source: 'text' });
    expect(r.text).toBe('Here is a photo of the empty mailbox. Nothing was left there.\n\nMaria');
    const html = visibleReply({ html: email.html });
    expect(html).toMatchObject({ quoted: true, source: 'html' });
    expect(html.text).toBe('Here is a photo of the empty mailbox. Nothing was left there.\n\nMaria');
    expectNoQuote(html.text);
  });

  it('keeps the answers of a reply written inline, between the quotes', () => {
    const r = visibleReply({ text: 'On Thu, Nov 26, 2026 at 10:02 AM Ana <support+x@localhost> wrote:\n> Is the address right?\n\nYes, it is.\n\n> When did you last check?\n\nThis morning.\n' });
    expect(r.quoted).toBe(true);
    expect(r.text).toContain('Yes, it is.');
    expect(r.text).toContain('This morning.');
    expect(r.text).not.toContain('Is the address right?');
    expect(r.text).not.toContain('When did you last check?');
  });

  it('removes the signatures email-reply-parser knows ("Sent from my iPhone")', () => {
    expect(visibleReply({ text: 'Pode cancelar, obrigado.\n\nSent from my iPhone' })).toMatchObject({ text: 'Pode cancelar, obrigado.', quoted: false });
  });

  it('a forwarded mail is not a quote: its content is the requester’s and is kept whole', async () => {
    const email = await parse('forwarded.eml');
    const r = visibleReply(email);
    expect(r).toMatchObject({ quoted: false, forwarded: true, source: 'text' });
    expect(r.text.startsWith('Oi, segue o e-mail da transportadora.')).toBe(true);
    expect(r.text).toContain('---------- Forwarded message ---------');
    expect(r.text).toContain('Código de rastreio: BR123456789XX');
    expect(r.text).toContain('Atenciosamente,\nTransportadora Rápida');
    // Its HTML too: Gmail puts a forward in a gmail_quote, which is kept.
    const html = visibleReply({ html: email.html });
    expect(html).toMatchObject({ quoted: false, forwarded: true });
    expect(html.text).toContain('Código de rastreio: BR123456789XX');
  });

  it('an Outlook forward (its subject says so) keeps its "From: Sent:" block', () => {
    const text = 'See below.\n\n________________________________\nFrom: Carrier <noreply@carrier.example>\nSent: Wednesday, November 25, 2026 6:40 PM\nTo: John <john@outlook.com>\nSubject: Delivered\n\nYour parcel was delivered.';
    expect(visibleReply({ text, subject: 'FW: Delivered' })).toMatchObject({ forwarded: true, quoted: false, text: text.replace('\n\n\n', '\n\n') });
    expect(visibleReply({ text, subject: 'Re: Delivered' })).toMatchObject({ forwarded: false, quoted: true, text: 'See below.' });
    expect(isForwardSubject('ENC: Entrega')).toBe(true);
    expect(isForwardSubject('Fwd: x')).toBe(true);
    expect(isForwardSubject('Re: Fwd: x')).toBe(false);
    expect(isForwardSubject('Encomenda: x')).toBe(false);
  });

  it('reads the same with CRLF line ends, as the message arrives by SMTP', async () => {
    for (const name of ['gmail-reply.eml', 'gmail-reply-pt.eml', 'outlook-reply.eml', 'apple-mail-reply.eml']) {
      expect(visibleReply(await parse(name, true)).text).toBe(visibleReply(await parse(name)).text);
    }
  });

  it('says when there is no body, and when the input was cut', () => {
    expect(visibleReply({})).toEqual({ text: '', quoted: false, forwarded: false, source: 'none', cut: false });
    const long = visibleReply({ text: `${'palavra '.repeat(30_000)}` });
    expect(long.cut).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(MAX_INPUT_CHARS);
  });

  it('processes pathological 200 KB inputs in well under a second each (measured; asserted under 2 s)', () => {
    const N = 200_000;
    const fill = (unit: string) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);
    const inputs: Record<string, { text?: string; html?: string }> = {
      'many > lines': { text: fill('> > > quoted\n') },
      'one run of >': { text: fill('>') },
      'no newline at all': { text: fill('a') },
      '"On a a a …" without newlines (10 s in email-reply-parser alone)': { text: `On ${fill('a ')}` },
      '" on at" runs': { text: `x${fill(' on at')}` },
      'digits, from and <': { text: fill('1234 from <') },
      'From: with many <': { text: `From: ${fill('<a ')}` },
      'Dutch "Op" lines (a [\\s\\S]+ in the library)': { text: fill('Op a\n') },
      'Danish "abc. skrev" lines': { text: fill('abc. skrev x\n') },
      'blank lines then a header': { text: `${fill('\n')}On x` },
      'tildes': { text: `${fill('~')}x` },
      'quotes and answers alternating': { text: fill('a\n> b\n') },
      'attributions and quotes alternating': { text: fill('On a b wrote:\n\n> x\n') },
      'HTML: nested unclosed tags': { html: fill('<b><i>') },
      'HTML: nested divs': { html: fill('<div>x') },
      'HTML: text with < everywhere': { html: fill('1234 from <') },
      'HTML: many > lines in a pre': { html: `<pre>${fill('&gt; x\n')}</pre>` },
    };
    const times: Record<string, number> = {};
    for (const [name, input] of Object.entries(inputs)) {
      const started = performance.now();
      const r = visibleReply(input);
      times[name] = Math.round(performance.now() - started);
      expect(typeof r.text).toBe('string');
      expect(times[name]).toBeLessThan(2_000);
    }
    // The quoted lines are gone whatever their number.
    expect(visibleReply(inputs['many > lines']!).text).toBe('');
    expect(Math.max(...Object.values(times))).toBeLessThan(2_000);
  });
});

describe('automatedReason', () => {
  it('finds the auto-reply fixture (Auto-Submitted: auto-replied, out of office)', async () => {
    expect(automatedReason(await parse('auto-reply.eml'), desk)).toBe('Auto-Submitted: auto-replied');
  });

  it('finds the bounce (from MAILER-DAEMON, Auto-Submitted) and passes the replies people wrote', async () => {
    expect(automatedReason(await parse('dsn-bounce.eml'), desk)).not.toBeNull();
    for (const name of ['gmail-reply.eml', 'gmail-reply-pt.eml', 'outlook-reply.eml', 'apple-mail-reply.eml', 'forwarded.eml', 'spoofed-from.eml', 'malformed.eml']) {
      expect(automatedReason(await parse(name), desk)).toBeNull();
    }
  });

  it('reads each sign of a program', () => {
    expect(automatedReason(withHeaders({ 'Auto-Submitted': 'auto-generated' }), desk)).toBe('Auto-Submitted: auto-generated');
    expect(automatedReason(withHeaders({ 'Auto-Submitted': 'Auto-Replied; owner-email="x@y"' }), desk)).toBe('Auto-Submitted: auto-replied');
    for (const p of ['bulk', 'list', 'junk', 'auto_reply', 'Bulk']) expect(automatedReason(withHeaders({ Precedence: p }), desk)).toBe(`Precedence: ${p.toLowerCase()}`);
    expect(automatedReason(withHeaders({ 'X-Loop': 'support@localhost' }), desk)).toMatch(/X-Loop/);
    expect(automatedReason(withHeaders({ 'X-Loop': `Support+${TOKEN_123}@LOCALHOST` }), desk)).toMatch(/X-Loop/);
    expect(automatedReason(withHeaders({ 'X-Autoreply': 'yes' }), desk)).toMatch(/X-Autoreply/);
    expect(automatedReason(withHeaders({ 'X-Autorespond': 'Out of office' }), desk)).toMatch(/X-Autorespond/);
    expect(automatedReason(withHeaders({ 'List-Id': 'Clientes <clientes.lists.example.com>' }), desk)).toMatch(/List-Id/);
    expect(automatedReason(withHeaders({}, 'support@localhost'), desk)).toMatch(/desk/);
    expect(automatedReason(withHeaders({}, `support+${TOKEN_123}@localhost`), desk)).toMatch(/desk/);
    expect(automatedReason(withHeaders({}, 'MAILER-DAEMON@mx.example.com'), desk)).toMatch(/mailer-daemon@/);
    expect(automatedReason(withHeaders({}, 'postmaster@example.com'), desk)).toMatch(/postmaster@/);
  });

  it('passes what a person’s mail may carry', () => {
    expect(automatedReason(withHeaders({ 'Auto-Submitted': 'no' }), desk)).toBeNull();
    expect(automatedReason(withHeaders({ Precedence: 'first-class' }), desk)).toBeNull();
    expect(automatedReason(withHeaders({ 'X-Loop': 'helpdesk@example.com' }), desk)).toBeNull();
    expect(automatedReason(withHeaders({}, 'support@example.com'), desk)).toBeNull();
    expect(automatedReason(withHeaders({}, 'daemon.fan@example.com'), desk)).toBeNull();
    expect(automatedReason({ headers: [] }, desk)).toBeNull();
  });
});

describe('bounceOf', () => {
  it('reads the DSN fixture: the failed recipient, 5.1.1, hard, and the Message-ID of our mail that bounced', async () => {
    const bounce = bounceOf(await parse('dsn-bounce.eml'));
    expect(bounce).toEqual({
      recipients: [
        {
          address: 'nobody.here@example.com',
          action: 'failed',
          status: '5.1.1',
          diagnostic: 'smtp; 550 5.1.1 <nobody.here@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
          hard: true,
        },
      ],
      originalMessageId: messageIdOf(FIXTURE_SECRET, 'localhost', 91, 0),
      hard: true,
    });
    expect(verify(bounce!.originalMessageId!)).toEqual({ ticketId: 91, messageId: 0 });
  });

  it('reads the same with CRLF line ends', async () => {
    expect(bounceOf(await parse('dsn-bounce.eml', true))).toEqual(bounceOf(await parse('dsn-bounce.eml')));
  });

  /** The fixture with its delivery-status fields changed, parsed again. */
  const variant = async (edit: (raw: string) => string) => PostalMime.parse(edit(raw('dsn-bounce.eml').toString('utf8')));

  it('a delay (delayed, 4.x.x) or a temporary failure (4.x.x) is no hard bounce', async () => {
    const delayed = bounceOf(await variant((r) => r.replace('Action: failed\nStatus: 5.1.1', 'Action: delayed\nStatus: 4.4.1')));
    expect(delayed?.recipients[0]).toMatchObject({ action: 'delayed', status: '4.4.1', hard: false });
    expect(delayed?.hard).toBe(false);
    const temporary = bounceOf(await variant((r) => r.replace('Status: 5.1.1', 'Status: 4.2.2')));
    expect(temporary?.recipients[0]).toMatchObject({ action: 'failed', status: '4.2.2', hard: false });
  });

  it('takes the status from Diagnostic-Code when Status is missing, and the original from a message/rfc822 part', async () => {
    const noStatus = bounceOf(await variant((r) => r.replace('Status: 5.1.1\n', '')));
    expect(noStatus?.recipients[0]).toMatchObject({ status: '5.1.1', hard: true });
    const rfc822 = bounceOf(await variant((r) => r.replace('Content-Type: text/rfc822-headers', 'Content-Type: message/rfc822')));
    expect(rfc822?.originalMessageId).toBe(messageIdOf(FIXTURE_SECRET, 'localhost', 91, 0));
  });

  it('is null for anything but a delivery-status report', async () => {
    expect(bounceOf(await parse('gmail-reply.eml'))).toBeNull();
    expect(bounceOf(await parse('auto-reply.eml'))).toBeNull();
    expect(bounceOf(await variant((r) => r.replace('report-type=delivery-status', 'report-type=feedback-report')))).toBeNull();
    expect(bounceOf({ headers: [], attachments: [] })).toBeNull();
  });
});

describe('ticketNumberOf', () => {
  it('reads [#n] anywhere in a subject', () => {
    expect(ticketNumberOf('Re: [#123] Prêmios: Não recebi meus prêmios')).toBe(123);
    expect(ticketNumberOf('RES: ENC: [#7] x')).toBe(7);
    expect(ticketNumberOf('[#0] x')).toBeNull();
    expect(ticketNumberOf('Pedido #123')).toBeNull();
    expect(ticketNumberOf('[# 123]')).toBeNull();
    expect(ticketNumberOf('[#99999999999999999999]')).toBeNull();
    expect(ticketNumberOf(undefined)).toBeNull();
    expect(ticketNumberOf(`${'x'.repeat(2_000)} [#5]`)).toBeNull(); // past the first 1,000 characters
  });
});

describe('threadCandidates', () => {
  const ticket123: ThreadCandidate[] = [
    { by: 'token', token: TOKEN_123 },
    { by: 'message-id', ticketId: 123, messageId: 45, id: '<t123.m45.mtz66qpaqrvsjpb5l2re@localhost>' },
    { by: 'subject', ticketId: 123 },
    { by: 'new' },
  ];

  it('orders the evidence of each reply fixture: token, then our Message-ID, then the subject, then new', async () => {
    for (const name of ['gmail-reply.eml', 'gmail-reply-pt.eml', 'apple-mail-reply.eml']) expect(threadOf(await parse(name))).toEqual(ticket123);
    expect(threadOf(await parse('outlook-reply.eml'))).toEqual([
      { by: 'token', token: 'x3m7kd2qpa5vn6hr4zt2ycwb' },
      { by: 'message-id', ticketId: 77, messageId: 12, id: '<t77.m12.epxknhiobqqjple45qlg@localhost>' },
      { by: 'subject', ticketId: 77 },
      { by: 'new' },
    ]);
  });

  it('a spoofer’s guessed In-Reply-To and altered References are rejected: only the subject is left, which the caller checks', async () => {
    const email = await parse('spoofed-from.eml');
    expect(email.inReplyTo).toBe('<t123.m45.aaaaaaaaaaaaaaaaaaaa@localhost>');
    expect(threadOf(email)).toEqual([{ by: 'subject', ticketId: 123 }, { by: 'new' }]);
  });

  it('a new mail to the desk’s plain address is new', async () => {
    expect(threadOf(await parse('forwarded.eml'))).toEqual([{ by: 'new' }]);
  });

  it('reads the envelope’s recipients, not only To, and each token once', () => {
    const c = threadCandidates({ recipients: ['other@example.com', `support+${TOKEN_123}@localhost`, `SUPPORT+${TOKEN_123.toUpperCase()}@localhost`] }, desk, verify);
    expect(c).toEqual([{ by: 'token', token: TOKEN_123 }, { by: 'new' }]);
  });

  it('tries In-Reply-To first, then References newest first, one candidate per ticket', () => {
    const seen: string[] = [];
    const ids = [messageIdOf(FIXTURE_SECRET, 'localhost', 5, 0), messageIdOf(FIXTURE_SECRET, 'localhost', 6, 1), messageIdOf(FIXTURE_SECRET, 'localhost', 6, 2)];
    const c = threadCandidates({ recipients: [], inReplyTo: ids[0], references: ids.join('\r\n ') }, desk, (id) => (seen.push(id), verify(id)));
    expect(seen).toEqual([ids[0], ids[2], ids[1], ids[0]]);
    expect(c).toEqual([
      { by: 'message-id', ticketId: 5, messageId: 0, id: ids[0] },
      { by: 'message-id', ticketId: 6, messageId: 2, id: ids[2] },
      { by: 'new' },
    ]);
  });

  it('messageIdsIn reads bracketed ids, and one id without brackets', () => {
    expect(messageIdsIn('<a@b> junk <c@d>\r\n <a@b> <bad id@x>')).toEqual(['<a@b>', '<c@d>']);
    expect(messageIdsIn('a@b')).toEqual(['<a@b>']);
    expect(messageIdsIn(undefined)).toEqual([]);
    expect(messageIdsIn('<x@y>'.repeat(1_000), 100)).toEqual(['<x@y>']);
  });
});

describe('malformed mail', () => {
  it('is parsed without throwing, and every rule returns something usable', async () => {
    const email = await parse('malformed.eml');
    expect(email.from).toMatchObject({ address: 'maria.silva@gmail.com' });
    const r = visibleReply(email);
    expect(r.text).toContain('Ainda não recebi o prêmio');
    expect(automatedReason(email, desk)).toBeNull();
    expect(bounceOf(email)).toBeNull();
    // The In-Reply-To lacks its closing bracket: no Message-ID; the reply address still threads it.
    expect(threadOf(email)).toEqual([{ by: 'token', token: TOKEN_123 }, { by: 'subject', ticketId: 123 }, { by: 'new' }]);
    const verdicts = await attachmentVerdicts(email.attachments);
    expect(verdicts).toHaveLength(email.attachments.length);
    for (const v of verdicts) expect(typeof v.accepted).toBe('boolean');
  });
});

describe('the spoofed fixture', () => {
  it('has the shape a DMARC check will refuse: a requester’s From, no DKIM signature, sent from an unrelated host', async () => {
    const email = await parse('spoofed-from.eml');
    expect(email.from).toMatchObject({ address: 'maria.silva@gmail.com' });
    expect(email.headers.some((h) => h.key === 'dkim-signature')).toBe(false);
    expect(email.headers.find((h) => h.key === 'received')?.value).toContain('cheap-hosting.example [198.51.100.77]');
    expect(visibleReply(email)).toMatchObject({ quoted: false });
  });
});

describe('attachmentVerdicts', () => {
  const file = (content: Uint8Array | string, over: Partial<Attachment> = {}): Attachment => ({ filename: 'f.bin', mimeType: 'application/octet-stream', disposition: 'attachment', content: typeof content === 'string' ? new TextEncoder().encode(content) : content, ...over });
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex');

  it('takes the forwarded PDF and refuses the zip, with the reason', async () => {
    const email = await parse('forwarded.eml');
    const verdicts = await attachmentVerdicts(email.attachments);
    expect(verdicts[0]).toMatchObject({ index: 0, filename: 'comprovante-entrega.pdf', accepted: true, type: 'application/pdf', inline: false });
    expect(verdicts[1]).toMatchObject({ index: 1, filename: 'fotos.zip', accepted: false, reason: 'type-not-allowed', declaredType: 'application/zip' });
    expect((verdicts[1] as { detail: string }).detail).toMatch(/not allowed/);
  });

  it('includes an inline image (by Content-ID), marked inline, with its type read from its content', async () => {
    const email = await parse('apple-mail-reply.eml');
    expect(await attachmentVerdicts(email.attachments)).toEqual([
      { index: 0, filename: 'caixa.png', declaredType: 'image/png', size: email.attachments[0]!.content instanceof ArrayBuffer ? email.attachments[0]!.content.byteLength : -1, inline: true, contentId: 'F3A1B2C4-5D6E-4F70-8192-A3B4C5D6E7F8', accepted: true, type: 'image/png' },
    ]);
  });

  it('refuses a file over the limit (a 20 MB file built in memory), an empty one, and those past the count', async () => {
    const big = new Uint8Array(20 * 1024 * 1024);
    big.set(PNG);
    const verdicts = await attachmentVerdicts([file(big, { filename: 'big.png', mimeType: 'image/png' }), file(new Uint8Array(0)), file('a,b\n1,2\n', { filename: 'dados.csv', mimeType: 'text/csv' })], { maxCount: 2 });
    expect(verdicts.map((v) => (v.accepted ? v.type : v.reason))).toEqual(['too-large', 'empty', 'too-many']);
    expect(verdicts[0]).toMatchObject({ size: 20 * 1024 * 1024 });
    expect((verdicts[0] as { detail: string }).detail).toContain('10 MB');
    // Exactly the limit is accepted.
    const limit = new Uint8Array(MAX_ATTACHMENT_BYTES);
    limit.set(PNG);
    expect(await attachmentVerdicts([file(limit, { filename: 'limit.png' })])).toMatchObject([{ accepted: true, type: 'image/png' }]);
  });

  it('reads the type from the content, not the declaration, and names files safely', async () => {
    const verdicts = await attachmentVerdicts([
      file(PNG, { filename: '../../etc/foto.pdf', mimeType: 'application/pdf' }),
      file('MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff', { filename: 'nota.pdf', mimeType: 'application/pdf' }),
      file('a;b\n1;2\n', { filename: 'dados.csv', mimeType: 'text/csv' }),
      file('just text', { filename: null, mimeType: 'text/plain' }),
      file(PNG, { filename: 'a\r\nb.png', encoding: 'base64', content: PNG.toString('base64') }),
    ]);
    expect(verdicts.map((v) => [v.filename, v.accepted ? v.type : v.reason])).toEqual([
      ['foto.pdf', 'image/png'],
      ['nota.pdf', 'type-not-allowed'],
      ['dados.csv', 'text/csv'],
      ['arquivo-4.txt', 'text/plain'],
      ['a b.png', 'image/png'],
    ]);
  });
});
