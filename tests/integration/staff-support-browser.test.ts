/**
 * The staff console's Support desk (issue 38 item 2) in a real browser: headless Chromium driven
 * by Playwright, against the web service on a port of loopback, the support service (the
 * requesters' side: tickets and their messages through its public and bearer routes) and the
 * shared worker (bulk operations run as workflows). Two support agents sign in with mailed codes.
 * The queue shows the views' counts and a newsletter's facet; j/k/Enter open a ticket by keyboard
 * and `a` takes it; a quick reply is sent (its use counted); a note and a tag are added; the second
 * agent, on the same ticket, sees the first "replying" while they type; a requester's message
 * arriving meanwhile shows without a reload, and sending then asks first; a bulk resolve of a
 * selection runs to completion with its progress. Every page is checked (axe-core: no serious or
 * critical violation; no console error; nothing wider than the screen) at a desktop's width and at
 * 375 px, and screenshotted into reports/screenshots/staff-support-*.png.
 *
 * It uses the default test database: the shared worker, which runs the bulk workflows, writes there.
 */
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { inviteMember } from '../../operations/staff/members';
import { provider } from '../helpers/ai';
import { checkPage, launchChromium, openTab, PHONE, signInWithCode, takeConsoleErrors, type Tab } from '../helpers/browser';
import { agentToken, buildTicket, client, readerToken, startSupportService, type SupportService } from '../helpers/support';
import { messagesTo } from '../helpers/mailpit';
import { eventually } from '../helpers/service';
import { startWebService, type WebService } from '../helpers/web';

jest.setTimeout(120_000);

let web: WebService;
let support: SupportService;
let browser: Browser;
const tabs: Tab[] = [];

const run = randomUUID().slice(0, 8);
const address = (who: string) => `${who}-${run}@example.com`;
const agent1 = address('ana');
const agent2 = address('bruno');
const newsletter = `Desk ${run}`;
const requesterA = address('reader-a');
const tagName = `vip-${run}`;
const quickTitle = `Resent ${run}`;
const quickContent = `Olá! Reenviamos a edição de hoje para o seu endereço (${run}).`;
/** The tickets, oldest first: A's first, B's, A's second, C's. */
const ids: number[] = [];
let tagId: number;
let quickId: number;

/** A PNG of `width` × `height`, a diagonal gradient (a screenshot stand-in), RGB. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) rows.set([30 + Math.round((x / width) * 180), 80 + Math.round((y / height) * 120), 200], y * (width * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

beforeAll(async () => {
  [web, support, browser] = await Promise.all([startWebService({}, { listen: true }), startSupportService(), launchChromium()]);
  for (const email of [agent1, agent2]) await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email, roles: ['support.agent'] });
  // The requesters open their tickets through the public route, one after the other (newest first in the queue).
  for (const [email, description] of [
    [requesterA, 'A edição de segunda não chegou.'],
    [address('reader-b'), 'Meus pontos sumiram.'],
    [requesterA, 'A edição de hoje também não chegou.'],
    [address('reader-c'), 'Quero mudar meu e-mail.'],
  ] as const) {
    const res = await client(support).post('/support', buildTicket({ email, description, newsletter })).expect(201);
    ids.push(res.body.data.id as number);
  }
  const staffToken = await agentToken(`desk-${run}`);
  tagId = (await client(support, staffToken).post('/support/tags', { name: tagName, color: '#8E24AA' }).expect(201)).body.data.id;
  quickId = (await client(support, staffToken).post('/support/respostas-rapidas', { title: quickTitle, content: quickContent, category: 'Entrega' }).expect(201)).body.data.id;
}, 90_000);

afterAll(async () => {
  await Promise.all(tabs.map((t) => t.context.close().catch(() => undefined)));
  await browser?.close();
  await Promise.all([web?.close(), support?.close()]);
});

async function signedIn(email: string): Promise<Tab> {
  const t = await openTab(browser);
  tabs.push(t);
  await t.page.goto(`${web.origin}/sign-in`);
  await signInWithCode(t.page, email);
  await t.page.waitForURL('**/account/keys');
  return t;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });
const row = (page: Page, id: number) => page.locator(`tr[data-ticket="${id}"]`);
const focusedTicket = (page: Page) => page.evaluate('document.activeElement?.closest("tr")?.getAttribute("data-ticket") ?? null');
const thread = (page: Page) => page.locator('.sd-thread').first();
const presence = (page: Page) => page.getByTestId('presence');
const ticketOf = (id: number) => web.deps.console.support.tickets.findById(id);

let one: Tab;
let two: Tab;
/** The ticket worked on: A's second (the third opened). */
let worked: number;

describe('the support desk', () => {
  it("shows the queue with each view's count and the facets", async () => {
    one = await signedIn(agent1);
    const { page } = one;
    await page.goto(`${web.origin}/staff/support`);
    await heading(page, 'Support desk').waitFor();
    await page.getByTestId('live-status').getByText('Live').waitFor();
    // The tabs' numbers are the API's (GET /support/views for this member).
    const views = ['mine', 'unassigned', 'open', 'pending', 'all'] as const;
    const read = async () => {
      const counts = (await page.evaluate('fetch("/api/staff/support/views").then((r) => r.json())')) as { data: Record<string, number> };
      const expected = views.map((v) => String(counts.data[v]));
      const shown = await Promise.all(views.map(async (v) => ((await page.getByTestId(`count-${v}`).textContent()) ?? '').replace(/\D/g, '')));
      return { shown, expected };
    };
    const deadline = Date.now() + 15_000;
    let { shown, expected } = await read();
    while (shown.join() !== expected.join() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      ({ shown, expected } = await read());
    }
    expect(shown).toEqual(expected);
    expect(Number(shown[1])).toBeGreaterThanOrEqual(4);
    // The newsletter's facet counts its 4 active tickets.
    await page.getByLabel('Newsletter', { exact: true }).locator('option', { hasText: `${newsletter} (4)` }).waitFor({ state: 'attached' });
    // "Mine" is empty for a new agent, and offers the unassigned tickets.
    await page.getByText('Nothing is assigned to you.').waitFor();
    await checkPage(one, 'staff-support-queue-mine');

    await page.getByLabel('Newsletter', { exact: true }).selectOption(newsletter);
    await page.getByRole('navigation', { name: 'Queue views' }).getByRole('link', { name: /^Unassigned/ }).click();
    await page.waitForURL((u) => u.searchParams.get('view') === 'unassigned' && u.searchParams.get('newsletter') === newsletter);
    // The view drawn, and its list's answer drawn (the rows asked for are on the view before it too).
    await page.locator('a[data-view="unassigned"][aria-current="page"]').waitFor();
    await page.locator('table.sd-queue[aria-busy="false"]').waitFor();
    for (const id of ids) await row(page, id).waitFor();
    expect(await page.locator('tr[data-ticket]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-ticket'))))).toEqual([...ids].reverse());
    await checkPage(one, 'staff-support-queue');
  });

  it('opens a ticket by keyboard (j/k/Enter) and takes it with `a`', async () => {
    const { page } = one;
    worked = ids[2]!;
    await page.keyboard.press('j');
    expect(await focusedTicket(page)).toBe(String(ids[3]));
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await focusedTicket(page)).toBe(String(worked));
    expect(await row(page, worked).getAttribute('class')).toContain('is-cursor');
    // `?` lists the shortcuts.
    await page.keyboard.press('?');
    const keys = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await keys.waitFor();
    await checkPage(one, 'staff-support-shortcuts');
    await page.keyboard.press('Escape');
    await keys.waitFor({ state: 'hidden' });
    // The focus went back to the row's link: Enter opens it.
    expect(await focusedTicket(page)).toBe(String(worked));
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/staff/support/${worked}`);
    await heading(page, `#${worked} · Não estou recebendo a edição`).waitFor();
    await expect(page.evaluate('document.activeElement.tagName')).resolves.toBe('H1');

    await page.keyboard.press('a');
    await page.getByTestId('assignee').getByText('You', { exact: true }).waitFor();
    expect((await ticketOf(worked))?.assignee).toBe(agent1);
    // The requester's other ticket is listed.
    await page.getByRole('region', { name: 'Requester’s other tickets' }).getByRole('link', { name: new RegExp(`#${ids[0]}`) }).waitFor();
  });

  it('sends a quick reply, whose use is counted', async () => {
    const { page } = one;
    await page.getByLabel('Quick reply').selectOption({ label: quickTitle });
    await page.getByRole('button', { name: 'Insert' }).click();
    const editor = page.getByLabel('Your reply or internal note');
    await expect(editor.inputValue()).resolves.toBe(quickContent);
    await page.getByText(`Quick reply “${quickTitle}”: sent as it is`).waitFor();
    await page.getByRole('button', { name: 'Send quick reply' }).click();
    await page.getByRole('status').getByText(`Quick reply “${quickTitle}” sent.`).waitFor();
    await thread(page).locator('[data-origin="admin"]').getByText(quickContent).waitFor();
    await expect(editor.inputValue()).resolves.toBe('');
    const replies = await client(support, await agentToken()).get('/support/respostas-rapidas').expect(200);
    expect(replies.body.data.find((q: { id: number }) => q.id === quickId)).toMatchObject({ usageCount: 1 });
    // An answer moves an open ticket to pending.
    await page.getByRole('region', { name: 'Status' }).getByText('Pending', { exact: true }).waitFor();
  });

  it("puts the AI's draft in the reply box, to be edited; adds an internal note and a tag", async () => {
    const { page } = one;
    const editor = page.getByLabel('Your reply or internal note');
    await provider().script(`ticket-${worked}`, [{ kind: 'reply', content: 'Oi! Já reenviamos a edição de hoje.' }]);
    await page.getByRole('button', { name: 'Draft with AI' }).click();
    await page.getByText('The AI’s draft is in the box').waitFor({ timeout: 20_000 });
    await expect(editor.inputValue()).resolves.toBe('Oi! Já reenviamos a edição de hoje.');
    // Nothing was sent: a draft only.
    expect(await web.deps.console.support.tickets.messages(worked)).toHaveLength(1);

    await editor.fill('Verifiquei os logs: a edição saiu às 6h.');
    await page.getByRole('button', { name: 'Add internal note' }).click();
    const note = thread(page).locator('[data-origin="nota"]');
    await note.getByText('Verifiquei os logs').waitFor();
    expect(await note.getByRole('heading').textContent()).toContain('Internal note');
    await page.getByLabel('Add a tag').selectOption({ label: tagName });
    await page.getByRole('region', { name: 'Tags' }).getByRole('button', { name: 'Add' }).click();
    await page.getByRole('button', { name: `Remove the tag ${tagName}` }).waitFor();
    expect((await ticketOf(worked))?.tags).toContain(tagId);
    // An attachment: uploaded, listed, previewed inline (an <img> of the same-origin download).
    await page.getByLabel('Attach a file').setInputFiles({ name: 'edicao-vazia.png', mimeType: 'image/png', buffer: png(480, 300) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').getByText('edicao-vazia.png uploaded.').waitFor();
    await page.getByRole('button', { name: 'Preview edicao-vazia.png' }).click();
    const preview = page.getByRole('dialog', { name: 'edicao-vazia.png' });
    const image = preview.getByRole('img', { name: 'The image edicao-vazia.png' });
    await image.waitFor();
    await expect(image.evaluate(async (img: any) => {
        await img.decode();
        return img.naturalWidth as number;
      })).resolves.toBe(480);
    await checkPage(one, 'staff-support-attachment-preview');
    await page.keyboard.press('Escape');
    await preview.waitFor({ state: 'hidden' });
    // A PDF: previewed in a frame of the browser's own viewer (the download answered inline=true).
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
    await page.getByLabel('Attach a file').setInputFiles({ name: 'boleto.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').getByText('boleto.pdf uploaded.').waitFor();
    const framed = page.waitForResponse((r) => r.url().includes('/download?inline=true'));
    await page.getByRole('button', { name: 'Preview boleto.pdf' }).click();
    const answer = await framed;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toBe('application/pdf');
    expect(answer.headers()['content-disposition']).toMatch(/^inline; /);
    await page.getByRole('dialog', { name: 'boleto.pdf' }).locator('iframe').waitFor();
    await checkPage(one, 'staff-support-pdf-preview');
    await page.keyboard.press('Escape');
    const messages = await web.deps.console.support.tickets.messages(worked);
    expect(messages.map((m) => [m.origem, m.remetente])).toEqual([
      ['admin', agent1],
      ['nota', agent1],
    ]);
  });

  it('shows a second agent that the first is replying, and the first that the second is viewing', async () => {
    two = await signedIn(agent2);
    await two.page.goto(`${web.origin}/staff/support/${worked}`);
    await heading(two.page, new RegExp(`^#${worked}`)).waitFor();
    await presence(two.page).getByText(`${agent1} is viewing`).waitFor();
    await presence(one.page).getByText(`${agent2} is viewing`).waitFor();

    await one.page.getByLabel('Your reply or internal note').fill('Estamos reenviando');
    await presence(two.page).getByText(`${agent1} is replying`).waitFor({ timeout: 10_000 });
    await checkPage(two, 'staff-support-ticket-presence');
  });

  it("shows a requester's message arriving meanwhile, and asks before sending over it", async () => {
    const { page } = one;
    const editor = page.getByLabel('Your reply or internal note');
    await editor.fill('Estamos reenviando a edição agora.');
    await client(support, await readerToken(requesterA)).post(`/support/${worked}/mensagens`, { conteudo: 'Ainda não chegou nada, e já são 10h.' }).expect(201);
    // Without a reload: the thread shows it, marked new.
    const arrived = thread(page).locator('[data-origin="usuario"]').filter({ hasText: 'Ainda não chegou nada' });
    await arrived.waitFor({ timeout: 10_000 });
    await arrived.getByText('New', { exact: true }).waitFor();
    await expect(editor.inputValue()).resolves.toBe('Estamos reenviando a edição agora.');
    await checkPage(one, 'staff-support-ticket');

    await page.getByRole('button', { name: 'Send reply' }).click();
    const ask = page.getByRole('dialog', { name: 'A newer message arrived: send anyway?' });
    await ask.waitFor();
    await ask.getByText('Ainda não chegou nada, e já são 10h.').waitFor();
    // The API refused the reply (409: nothing written), which the browser reports.
    expect(takeConsoleErrors(one)).toEqual([expect.stringContaining('status of 409')]);
    expect((await web.deps.console.support.tickets.messages(worked)).map((m) => m.conteudo)).not.toContain('Estamos reenviando a edição agora.');
    await checkPage(one, 'staff-support-ticket-conflict');
    await ask.getByRole('button', { name: 'Send anyway' }).click();
    await page.getByRole('status').getByText('Reply sent.').waitFor();
    await thread(page).locator('[data-origin="admin"]').filter({ hasText: 'Estamos reenviando a edição agora.' }).waitFor();
    const last = (await web.deps.console.support.tickets.messages(worked)).at(-1);
    expect(last).toMatchObject({ origem: 'admin', remetente: agent1, conteudo: 'Estamos reenviando a edição agora.', canal: 'console' });
    // Mailed to the requester (issue 39): the delivery's end reaches the open page through the live updates.
    const reply = thread(page).locator('[data-origin="admin"]').filter({ hasText: 'Estamos reenviando a edição agora.' });
    await reply.locator('[data-delivery="sent"]').filter({ hasText: 'Mailed to the requester' }).waitFor({ timeout: 20_000 });
    const mailed = await eventually(async () => (await messagesTo(requesterA)).some((m) => m.text.includes('Estamos reenviando a edição agora.')), true);
    expect(mailed).toBe(true);
    // The second agent's page shows the reply too, without a reload.
    await thread(two.page).getByText('Estamos reenviando a edição agora.').waitFor({ timeout: 10_000 });
  });

  it('resolves a selection in bulk, with its progress to the end', async () => {
    const { page } = one;
    await page.keyboard.press('Escape'); // out of the reply box: the page's keys work again
    await page.keyboard.press('u');
    await page.waitForURL(/\/staff\/support\?/);
    await heading(page, 'Support desk').waitFor();
    await page.getByRole('navigation', { name: 'Queue views' }).getByRole('link', { name: /^Open/ }).click();
    await page.waitForURL(/view=open/);
    // The view drawn, and its list's answer drawn (the rows asked for are on the view before it too).
    await page.locator('a[data-view="open"][aria-current="page"]').waitFor();
    await page.locator('table.sd-queue[aria-busy="false"]').waitFor();
    const open = [ids[0]!, ids[1]!, ids[3]!];
    for (const id of open) await row(page, id).waitFor();
    await row(page, worked).waitFor({ state: 'detached' });
    // One by checkbox, one by keyboard (j to the row, x).
    await row(page, ids[3]!).getByRole('checkbox').check();
    await page.keyboard.press('j');
    expect(await focusedTicket(page)).toBe(String(ids[1]));
    await page.keyboard.press('x');
    const bar = page.getByRole('toolbar', { name: 'Actions on 2 selected tickets' });
    await bar.waitFor();
    await checkPage(one, 'staff-support-bulk-selection');
    await bar.getByRole('button', { name: 'Change status…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the status of 2 tickets' });
    await dialog.getByRole('radio', { name: 'Resolved' }).check();
    await checkPage(one, 'staff-support-bulk-dialog');
    await dialog.getByRole('button', { name: 'Apply to 2 tickets' }).click();
    const progress = page.getByTestId('bulk-progress');
    await progress.waitFor();
    await progress.getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
    await progress.getByText('2 of 2 processed (100%)', { exact: true }).waitFor();
    await progress.getByText('2 succeeded', { exact: true }).waitFor();
    await progress.getByText('0 failed', { exact: true }).waitFor();
    expect((await Promise.all([ids[1]!, ids[3]!].map(ticketOf))).map((t) => t?.status)).toEqual(['resolved', 'resolved']);
    // The view is read again: the resolved tickets have left it.
    await row(page, ids[3]!).waitFor({ state: 'detached' });
    await row(page, ids[0]!).waitFor();
    // Live: a requester's message marks its row, without a reload.
    await client(support, await readerToken(requesterA)).post(`/support/${ids[0]}/mensagens`, { conteudo: 'Alguma novidade?' }).expect(201);
    await row(page, ids[0]!).getByText('New message', { exact: true }).waitFor({ timeout: 10_000 });
    await checkPage(one, 'staff-support-bulk-done');
  });

  it('works in Portuguese at a phone width', async () => {
    const { page } = one;
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await heading(page, 'Central de suporte').waitFor();
    // The bulk operation started in English is described in Portuguese now.
    await page.getByTestId('bulk-progress').getByRole('heading', { name: 'Operação em massa: Mudar status para Resolvido' }).waitFor();
    // A notice still shown follows the language too (if the bulk's is still there, it is in Portuguese).
    expect((await page.locator('.staff-toast').allTextContents()).filter((text) => /started on/.test(text))).toEqual([]);
    await checkPage(one, 'staff-support-queue-pt-phone', { phone: false });
    await row(page, ids[0]!).getByRole('link').click();
    await heading(page, new RegExp(`^#${ids[0]}`)).waitFor();
    await page.getByRole('button', { name: 'Atalhos de teclado' }).waitFor();
    await checkPage(one, 'staff-support-ticket-pt-phone', { phone: false });
    await page.getByRole('button', { name: 'View in English' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(one.consoleErrors).toEqual([]);
    expect(two.consoleErrors).toEqual([]);
  });

  it("shows a requester's mail as such: by e-mail, a DMARC failure warned of, the files not kept with why", async () => {
    const { page } = one;
    const id = ids[3]!;
    const ticket = (await ticketOf(id))!;
    // As the inbound processing stores it (operations/support/inbound-process.ts): the whole mail in MinIO, the reply on the ticket.
    const raw = `From: ${address('reader-c')}\r\nSubject: Re: [#${id}]\r\n\r\nSegue o comprovante do pedido.\r\n`;
    const rawKey = `inbound-mail/browser/${id}-${run}.eml`;
    await support.deps.storage.client.putObject(support.deps.storage.bucket, rawKey, Buffer.from(raw), Buffer.byteLength(raw));
    await web.deps.console.support.tickets.addMessage(ticket, {
      conteudo: 'Segue o comprovante do pedido.',
      remetente: address('reader-c'),
      origem: 'usuario',
      canal: 'email',
      email: { emailRaw: rawKey, dmarcFalhou: true, arquivosRecusados: [{ nome: 'comprovante.pdf', tipo: 'application/pdf', tamanho: 20 * 1024 * 1024, motivo: 'too-large', detalhe: 'larger than 10485760 bytes' }] },
    });
    await page.goto(`${web.origin}/staff/support/${id}`);
    const mail = thread(page).locator('[data-origin="usuario"]').filter({ hasText: 'Segue o comprovante do pedido.' });
    await mail.waitFor();
    await mail.getByRole('heading').filter({ hasText: 'by e-mail' }).waitFor();
    await mail.locator('[data-dmarc="fail"]').filter({ hasText: 'This mail failed DMARC: its sender may not be who it says.' }).waitFor();
    expect(await mail.getByRole('list', { name: 'Files not kept' }).getByRole('listitem').allTextContents()).toEqual(['Not kept: comprovante.pdf (over 10 MB)']);
    // The whole mail, as received, through the console's session.
    const [download] = await Promise.all([page.waitForEvent('download'), mail.getByRole('link', { name: 'The whole mail, as received (.eml)' }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^chamado-${id}-mensagem-\\d+\\.eml$`));
    expect(await readFile((await download.path())!, 'utf8')).toBe(raw);
    await checkPage(one, 'staff-support-ticket-email');
  });
});
