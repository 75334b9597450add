/** The mail a ticket's requester receives (models/support/mail-out.rules.ts; issue 39). */
import { parseHTML } from 'linkedom';
import MailComposer from 'nodemailer/lib/mail-composer';
import PostalMime from 'postal-mime';
import { messageIdOf, ourMessageId } from '../../models/support/mail-ids';
import { threadCandidates, ticketNumberOf } from '../../models/support/mail-in.rules';
import { headerSafe } from '../../models/shared/mail-text.rules';
import {
  base32,
  composeAcknowledgement,
  composeReply,
  messageIdOrNull,
  REFERENCES_MAX,
  replyAddressOf,
  splitAttachments,
  subjectOf,
  threadHeaders,
  tokenOf,
  type AttachmentRef,
  type ComposedMail,
  type MailCommon,
  type ReplyInput,
} from '../../models/support/mail-out.rules';

const SECRET = 'unit-test-secret-of-at-least-32-chars!!';
const DOMAIN = 'localhost';
const desk = { address: 'support@localhost', name: 'Newsletter Support' };
const TOKEN = 'q4wbt7zk2mh5ra3xnyv6cdpe';
const MB = 1024 * 1024;
const HOSTILE = 'Prêmios\r\nBcc: x@evil\r\n\r\n<b>body</b>';

const ticket = { _id: 123, email: 'maria.silva@gmail.com', main: 'Prêmios', issue: 'Não recebi meus prêmios', createdAt: new Date('2026-11-20T12:00:00Z') };
const ackId = messageIdOf(SECRET, DOMAIN, 123, 0);
const earlierReply = messageIdOf(SECRET, DOMAIN, 123, 40);
const fromRequester = '<CAFk2x7QpN3vYt8mR5wJ0hZ=eXb9uLs4dKqT1aG6cV2nM8yW3rA@mail.gmail.com>';

const common = (over: Partial<MailCommon> = {}): MailCommon => ({
  ticket,
  desk,
  token: TOKEN,
  messageId: messageIdOf(SECRET, DOMAIN, 123, 45),
  thread: [ackId, fromRequester, earlierReply],
  inReplyTo: fromRequester,
  language: 'pt',
  ...over,
});
const reply = (over: Partial<ReplyInput> = {}): ComposedMail =>
  composeReply({
    ...common(),
    message: { _id: 45, conteudo: 'Olá Maria,\n\nO prêmio foi enviado.\nCódigo: BR1 & <b>não</b> é HTML.', remetenteNome: 'Ana' },
    attachMaxBytes: 10 * MB,
    linkOf: (id) => `https://support.example.com/support/arquivos/${id}?expira=1&assinatura=abc`,
    ...over,
  });

/** Every header value a composed mail carries. */
const headerValues = (m: ComposedMail): string[] => [m.from.name, m.from.address, m.replyTo, m.to, m.subject, m.messageId, m.inReplyTo ?? '', ...m.references, ...Object.keys(m.headers), ...Object.values(m.headers), ...m.attach.map((a) => a.name)];

/** The mail as nodemailer writes it, parsed back by postal-mime: what the requester's client sees. */
async function wire(m: ComposedMail) {
  const raw = await new MailComposer({
    from: m.from,
    to: m.to,
    replyTo: m.replyTo,
    subject: m.subject,
    messageId: m.messageId,
    ...(m.inReplyTo ? { inReplyTo: m.inReplyTo } : {}),
    references: m.references,
    headers: m.headers,
    text: m.text,
    html: m.html,
  })
    .compile()
    .build();
  return { raw: raw.toString('utf8'), parsed: await PostalMime.parse(raw) };
}

describe('base32', () => {
  it('is RFC 4648 base32, lowercased and unpadded', () => {
    const vectors: [string, string][] = [['', ''], ['f', 'my'], ['fo', 'mzxq'], ['foo', 'mzxw6'], ['foob', 'mzxw6yq'], ['fooba', 'mzxw6ytb'], ['foobar', 'mzxw6ytboi']];
    for (const [input, output] of vectors) expect(base32(new TextEncoder().encode(input))).toBe(output);
  });
});

describe('reply addresses', () => {
  it('puts the token after the desk local part and +', () => {
    expect(replyAddressOf(desk, TOKEN)).toBe(`support+${TOKEN}@localhost`);
  });

  it('reads the token back, whatever the case, with or without angle brackets', () => {
    expect(tokenOf(desk, `support+${TOKEN}@localhost`)).toBe(TOKEN);
    expect(tokenOf(desk, `SUPPORT+${TOKEN.toUpperCase()}@LocalHost`)).toBe(TOKEN);
    expect(tokenOf(desk, ` <support+${TOKEN}@localhost> `)).toBe(TOKEN);
  });

  it('finds no token in other addresses', () => {
    expect(tokenOf(desk, 'support@localhost')).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN}@example.com`)).toBeNull();
    expect(tokenOf(desk, `sales+${TOKEN}@localhost`)).toBeNull();
    expect(tokenOf(desk, `xsupport+${TOKEN}@localhost`)).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN}x@localhost`)).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN.slice(1)}@localhost`)).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN}+more@localhost`)).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN.slice(0, -1)}1@localhost`)).toBeNull();
    expect(tokenOf(desk, 'not an address')).toBeNull();
    expect(tokenOf(desk, `support+${TOKEN}@localhost\r\nBcc: x@evil`)).toBeNull();
  });

  it('refuses a malformed token, and a desk address that is not plain', () => {
    expect(() => replyAddressOf(desk, 'short')).toThrow(/24/);
    expect(() => replyAddressOf(desk, `${TOKEN}\r\nBcc: x@evil`)).toThrow();
    expect(() => replyAddressOf({ address: 'support+x@localhost' }, TOKEN)).toThrow(/plain/);
  });
});

describe('subjects', () => {
  it('carries the ticket number as [#n], the main category and the issue', () => {
    expect(subjectOf(ticket, 'pt')).toBe('[#123] Prêmios: Não recebi meus prêmios');
    expect(subjectOf(ticket, 'pt', true)).toBe('Re: [#123] Prêmios: Não recebi meus prêmios');
  });

  it('names the spec issue in English for English mail', () => {
    expect(subjectOf(ticket, 'en', true)).toBe('Re: [#123] Prêmios: I did not receive my prizes');
    expect(subjectOf({ ...ticket, issue: 'Something else' }, 'en')).toBe('[#123] Prêmios: Something else');
  });

  it('is read back by ticketNumberOf, as a client replying and forwarding would write it', () => {
    for (const s of [subjectOf(ticket, 'pt'), subjectOf(ticket, 'en', true), `RE: AW: ${subjectOf(ticket, 'pt', true)}`, `Fwd: ${subjectOf(ticket, 'pt')}`]) expect(ticketNumberOf(s)).toBe(123);
  });

  it('keeps a hostile main category on one line, and bounded', () => {
    const s = subjectOf({ ...ticket, main: HOSTILE, issue: `x\u2028y\u0085z${'w'.repeat(500)}` }, 'pt', true);
    expect(s).not.toMatch(/[\r\n\u2028\u0085]/);
    expect(s.startsWith('Re: [#123] Prêmios Bcc: x@evil <b>body</b>: x y z')).toBe(true);
    expect(s.length).toBeLessThanOrEqual(200);
  });

  it('refuses a ticket id that is not a positive integer', () => {
    expect(() => subjectOf({ ...ticket, _id: 0 }, 'pt')).toThrow();
  });
});

describe('header values', () => {
  it('headerSafe turns control characters and line separators into spaces', () => {
    expect(headerSafe('a\r\nBcc: b\u0000c\td\u2029e')).toBe('a Bcc: b c d e');
    expect(headerSafe('x'.repeat(300), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('messageIdOrNull keeps msg-ids and drops anything that could carry a header', () => {
    expect(messageIdOrNull(fromRequester)).toBe(fromRequester);
    expect(messageIdOrNull('abc@example.com')).toBe('<abc@example.com>');
    expect(messageIdOrNull('<abc@example.com>\r\nBcc: x@evil')).toBeNull();
    expect(messageIdOrNull('<a b@example.com>')).toBeNull();
    expect(messageIdOrNull('<no-at-sign>')).toBeNull();
    expect(messageIdOrNull('<a@b@c>')).toBeNull();
    expect(messageIdOrNull(null)).toBeNull();
  });
});

describe('threading', () => {
  it('answers the requester’s last mail and lists the thread oldest first, the parent last', () => {
    const own = messageIdOf(SECRET, DOMAIN, 123, 45);
    expect(threadHeaders(own, [ackId, fromRequester, earlierReply], fromRequester)).toEqual({ inReplyTo: fromRequester, references: [ackId, earlierReply, fromRequester] });
    // Without an explicit parent, the thread's last; with null, none.
    expect(threadHeaders(own, [ackId, earlierReply])).toEqual({ inReplyTo: earlierReply, references: [ackId, earlierReply] });
    expect(threadHeaders(own, [], null)).toEqual({ inReplyTo: null, references: [] });
  });

  it(`keeps at most ${REFERENCES_MAX} references: the thread's first and the newest`, () => {
    const own = messageIdOf(SECRET, DOMAIN, 123, 999);
    const ids = Array.from({ length: 50 }, (_, i) => messageIdOf(SECRET, DOMAIN, 123, i));
    const { references, inReplyTo } = threadHeaders(own, ids);
    expect(references).toHaveLength(REFERENCES_MAX);
    expect(references[0]).toBe(ids[0]);
    expect(references.slice(1)).toEqual(ids.slice(-19));
    expect(inReplyTo).toBe(ids[49]);
  });

  it('drops ids that are not msg-ids, repeats and its own id', () => {
    const own = messageIdOf(SECRET, DOMAIN, 123, 45);
    const { references, inReplyTo } = threadHeaders(own, [ackId, ackId, own, '<x@evil>\r\nBcc: y@evil', 'junk'], '<z@evil>\nBcc: w@evil');
    expect(references).toEqual([ackId]);
    expect(inReplyTo).toBeNull();
  });
});

describe('splitAttachments', () => {
  const file = (id: number, size: number): AttachmentRef => ({ id, name: `f${id}.pdf`, type: 'application/pdf', size });

  it('attaches in order while the total stays within the limit, and links the rest', () => {
    expect(splitAttachments([file(1, 3 * MB), file(2, 3 * MB), file(3, 3 * MB)], 10 * MB)).toEqual({ attach: [file(1, 3 * MB), file(2, 3 * MB), file(3, 3 * MB)], link: [] });
    expect(splitAttachments([file(1, 10 * MB)], 10 * MB)).toEqual({ attach: [file(1, 10 * MB)], link: [] });
    expect(splitAttachments([file(1, 10 * MB + 1)], 10 * MB)).toEqual({ attach: [], link: [file(1, 10 * MB + 1)] });
  });

  it('links every file from the first that does not fit: no later file jumps ahead', () => {
    expect(splitAttachments([file(1, 4 * MB), file(2, 7 * MB), file(3, 1 * MB)], 10 * MB)).toEqual({ attach: [file(1, 4 * MB)], link: [file(2, 7 * MB), file(3, 1 * MB)] });
  });

  it('links everything when attaching is off (0 bytes), but attaches nothing empty-handed', () => {
    expect(splitAttachments([file(1, 1)], 0)).toEqual({ attach: [], link: [file(1, 1)] });
    expect(splitAttachments([], 0)).toEqual({ attach: [], link: [] });
  });
});

describe('composeReply', () => {
  it('is from the desk (with the staff member’s name), replies to the ticket’s reply address, to the requester', () => {
    const m = reply();
    expect(m.from).toEqual({ name: 'Ana (Newsletter Support)', address: 'support@localhost' });
    expect(m.replyTo).toBe(`support+${TOKEN}@localhost`);
    expect(m.to).toBe('maria.silva@gmail.com');
    expect(m.subject).toBe('Re: [#123] Prêmios: Não recebi meus prêmios');
    expect(m.messageId).toBe(messageIdOf(SECRET, DOMAIN, 123, 45));
    expect(ourMessageId(SECRET, DOMAIN, m.messageId)).toEqual({ ticketId: 123, messageId: 45 });
    expect(m.inReplyTo).toBe(fromRequester);
    expect(m.references).toEqual([ackId, earlierReply, fromRequester]);
    expect(m.headers).toEqual({ 'X-Loop': 'support@localhost' });
    // The desk's name alone when the staff member's is not given.
    expect(reply({ message: { _id: 45, conteudo: 'x' } }).from).toEqual({ name: 'Newsletter Support', address: 'support@localhost' });
  });

  it('writes the message, the ticket number and that a reply reaches the ticket, in Portuguese', () => {
    const m = reply();
    expect(m.text.startsWith('Olá Maria,\n\nO prêmio foi enviado.\nCódigo: BR1 & <b>não</b> é HTML.\n')).toBe(true);
    expect(m.text).toContain('\n-- \n');
    expect(m.text).toContain('Chamado #123 · Prêmios: Não recebi meus prêmios');
    expect(m.text).toContain('sua resposta chega ao chamado #123');
    expect(m.html).toContain('<html lang="pt-BR">');
    expect(m.html).toContain('sua resposta chega ao chamado #123');
  });

  it('writes in English when the ticket is in English', () => {
    const m = reply({ language: 'en' });
    expect(m.subject).toBe('Re: [#123] Prêmios: I did not receive my prizes');
    expect(m.text).toContain('Ticket #123 · Prêmios: I did not receive my prizes');
    expect(m.text).toContain('your reply reaches ticket #123');
    expect(m.html).toContain('<html lang="en">');
  });

  it('escapes the message in the HTML, makes paragraphs of blank lines and <br> of line breaks, and loads nothing', () => {
    const m = reply({ message: { _id: 45, conteudo: 'Olá <script>alert(1)</script>\n\nlinha 1\nlinha 2 & "aspas" \'x\'\n<img src="https://tracker.example/p.gif">' } });
    expect(m.html).toContain('<p>Olá &#60;script&#62;alert(1)&#60;/script&#62;</p>');
    expect(m.html).toContain('<p>linha 1<br>\nlinha 2 &#38; &#34;aspas&#34; &#39;x&#39;<br>\n&#60;img src=&#34;https://tracker.example/p.gif&#34;&#62;</p>');
    // Nothing in the document loads anything: no element that fetches, no source, no CSS url().
    const { document } = parseHTML(m.html);
    expect(document.querySelectorAll('script, img, link, iframe, object, embed, style, video, audio, source, base').length).toBe(0);
    expect(document.querySelectorAll('[src], [srcset], [background], [poster]').length).toBe(0);
    const styled = Array.from(document.querySelectorAll('[style]') as unknown as ArrayLike<{ getAttribute(name: string): string | null }>);
    expect(styled.map((e) => e.getAttribute('style')).join(' ')).not.toMatch(/url\(|@import/i);
    expect(document.querySelector('p')?.textContent).toBe('Olá <script>alert(1)</script>');
  });

  it('attaches files up to the limit and links the rest, by the link function or a map', () => {
    const files: AttachmentRef[] = [
      { id: 1, name: 'foto.png', type: 'image/png', size: 4 * MB },
      { id: 2, name: 'planilha.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', size: 7 * MB },
      { id: 3, name: 'nota <fiscal>.pdf', type: 'application/pdf', size: 1_500 },
    ];
    const m = reply({ attachments: files });
    expect(m.attach).toEqual([files[0]]);
    expect(m.linked).toEqual([
      { name: 'planilha.xlsx', url: 'https://support.example.com/support/arquivos/2?expira=1&assinatura=abc', size: 7 * MB },
      { name: 'nota <fiscal>.pdf', url: 'https://support.example.com/support/arquivos/3?expira=1&assinatura=abc', size: 1_500 },
    ]);
    expect(m.text).toContain('Arquivos grandes demais para irem anexados; baixe-os pelos links:\n- planilha.xlsx (7,0 MB): https://support.example.com/support/arquivos/2?expira=1&assinatura=abc\n- nota <fiscal>.pdf (1 KB):');
    expect(m.html).toContain('<li><a href="https://support.example.com/support/arquivos/2?expira=1&#38;assinatura=abc">planilha.xlsx</a> (7,0 MB)</li>');
    expect(m.html).toContain('nota &#60;fiscal&#62;.pdf');

    const byMap = reply({ attachments: files, language: 'en', linkOf: new Map([[2, 'https://x.example/2'], [3, 'https://x.example/3']]) });
    expect(byMap.linked.map((f) => f.url)).toEqual(['https://x.example/2', 'https://x.example/3']);
    expect(byMap.text).toContain('- planilha.xlsx (7.0 MB): https://x.example/2');
  });

  it('refuses to link a file without an http(s) link', () => {
    const big: AttachmentRef[] = [{ id: 9, name: 'big.pdf', type: 'application/pdf', size: 20 * MB }];
    expect(() => reply({ attachments: big, linkOf: new Map() })).toThrow(/link/);
    expect(() => reply({ attachments: big, linkOf: () => 'javascript:alert(1)' })).toThrow(/link/);
    expect(() => reply({ attachments: big, linkOf: () => 'https://x.example/a b' })).toThrow(/link/);
  });

  it('builds no header with CR or LF from a hostile main, issue, name, file name or thread', () => {
    const m = reply({
      ticket: { ...ticket, main: HOSTILE, issue: 'Outros\r\nBcc: y@evil' },
      message: { _id: 45, conteudo: 'x', remetenteNome: 'Ana\r\nBcc: z@evil' },
      thread: [ackId, '<a@b>\r\nBcc: w@evil'],
      inReplyTo: '<c@d>\nBcc: v@evil',
      attachments: [{ id: 1, name: 'a\r\nContent-Type: text/html.pdf', type: 'application/pdf', size: 10 }],
    });
    for (const value of headerValues(m)) expect(value).not.toMatch(/[\r\n]/);
    expect(m.subject).toBe('Re: [#123] Prêmios Bcc: x@evil <b>body</b>: Outros Bcc: y@evil');
    expect(m.inReplyTo).toBeNull();
    expect(m.references).toEqual([ackId]);
    expect(m.attach[0]!.name).toBe('a Content-Type: text/html.pdf');
  });

  it('and the hostile values add no header once nodemailer writes the mail', async () => {
    const m = reply({ ticket: { ...ticket, main: HOSTILE }, message: { _id: 45, conteudo: 'x', remetenteNome: 'Ana\r\nBcc: z@evil' }, inReplyTo: '<c@d>\nBcc: v@evil' });
    const { parsed } = await wire(m);
    expect(parsed.headers.map((h) => h.key)).not.toContain('bcc');
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.subject).toBe(m.subject);
    expect(ticketNumberOf(parsed.subject)).toBe(123);
  });

  it('refuses a recipient that is not a plain address, and an own Message-ID that is not a msg-id', () => {
    expect(() => reply({ ticket: { ...ticket, email: 'maria@gmail.com\r\nBcc: x@evil' } })).toThrow(/recipient/);
    expect(() => reply({ ticket: { ...ticket, email: 'Maria <maria@gmail.com>' } })).toThrow(/recipient/);
    expect(() => reply({ messageId: 'not a msg-id' })).toThrow(/Message-ID/);
  });

  it('threads as the requester’s client will see it, and their reply finds the ticket again', async () => {
    const m = reply();
    const { parsed } = await wire(m);
    expect(parsed.messageId).toBe(m.messageId);
    expect(parsed.inReplyTo).toBe(fromRequester);
    expect(parsed.references).toBe(m.references.join(' '));
    expect(parsed.replyTo?.[0]).toMatchObject({ address: `support+${TOKEN}@localhost` });
    expect(parsed.text).toContain('sua resposta chega ao chamado #123');
    // The reply their client writes: to the reply address, In-Reply-To our id.
    const candidates = threadCandidates(
      { recipients: [m.replyTo], inReplyTo: m.messageId, references: [...m.references, m.messageId].join(' '), subject: `Re: ${m.subject}` },
      desk,
      (id) => ourMessageId(SECRET, DOMAIN, id),
    );
    expect(candidates.slice(0, 3)).toEqual([
      { by: 'token', token: TOKEN },
      { by: 'message-id', ticketId: 123, messageId: 45, id: m.messageId },
      { by: 'subject', ticketId: 123 },
    ]);
  });
});

describe('composeAcknowledgement', () => {
  const ack = (over: Partial<MailCommon> = {}) => composeAcknowledgement(common({ messageId: ackId, thread: [], inReplyTo: null, ...over }));

  it('is an automatic reply (RFC 3834) that asks not to be answered automatically', () => {
    const m = ack();
    expect(m.headers).toEqual({ 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All', 'X-Loop': 'support@localhost' });
    expect(ourMessageId(SECRET, DOMAIN, m.messageId)).toEqual({ ticketId: 123, messageId: 0 });
    expect(m.attach).toEqual([]);
    expect(m.linked).toEqual([]);
  });

  it('gives the ticket’s number and subject, and that a reply reaches the ticket', () => {
    const m = ack();
    expect(m.subject).toBe('[#123] Prêmios: Não recebi meus prêmios');
    expect(m.from).toEqual({ name: 'Newsletter Support', address: 'support@localhost' });
    expect(m.replyTo).toBe(`support+${TOKEN}@localhost`);
    expect(m.text).toContain('Recebemos seu chamado #123');
    expect(m.text).toContain('responda a este e-mail: sua resposta chega ao chamado');
    expect(m.html).toContain('Recebemos seu chamado #123');
    const en = ack({ language: 'en' });
    expect(en.subject).toBe('[#123] Prêmios: I did not receive my prizes');
    expect(en.text).toContain('We received your ticket #123');
    expect(en.text).toContain('your reply reaches the ticket');
  });

  it('answers the requester’s mail (Re:, In-Reply-To) when the ticket was opened by mail', () => {
    const m = ack({ thread: [fromRequester], inReplyTo: fromRequester });
    expect(m.subject).toBe('Re: [#123] Prêmios: Não recebi meus prêmios');
    expect(m.inReplyTo).toBe(fromRequester);
    expect(m.references).toEqual([fromRequester]);
  });

  it('repeats nothing the requester wrote beyond the subject, and builds no header from a hostile one', async () => {
    const m = ack({ ticket: { ...ticket, main: HOSTILE, issue: 'Outros\r\nX-Evil: 1' } });
    for (const value of headerValues(m)) expect(value).not.toMatch(/[\r\n]/);
    expect(m.html).not.toContain('<b>body</b>');
    expect(m.html).toContain('&#60;b&#62;body&#60;/b&#62;');
    const { parsed } = await wire(m);
    expect(parsed.headers.map((h) => h.key)).not.toContain('bcc');
    expect(parsed.headers.map((h) => h.key)).not.toContain('x-evil');
    expect(parsed.headers.find((h) => h.key === 'auto-submitted')?.value).toBe('auto-replied');
  });
});
