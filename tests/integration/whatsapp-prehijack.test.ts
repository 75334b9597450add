/**
 * Account pre-hijack through a WhatsApp sign-up (issue 35, item 4), on the running stack: the news
 * API (Meta's webhook) and the dashboard in-process, the test run's worker (conversation workflows),
 * FerretDB, the Cloud API double and Mailpit. A WhatsApp sign-up takes whatever address its phone
 * types, unproven; the real owner of that address who later signs in to the dashboard by mailed
 * code must get an account of their own (the attacker's phone not linked to it, seeing and getting
 * nothing of it), link a phone only by a code sent to that phone, and unlink it (their own only).
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startNewsService, type NewsService } from '../helpers/news';
import { Browser, startWebService, type WebService } from '../helpers/web';
import { deliver, double, messagesTo, newPhone, payload, textMessage, texts } from '../helpers/whatsapp';

jest.setTimeout(120_000);

let news: NewsService;
let web: WebService;
beforeAll(async () => {
  [news, web] = await Promise.all([startNewsService(), startWebService()]);
});
afterAll(async () => {
  await Promise.all([news?.close(), web?.close()]);
});

/** Delivers one text through Meta's webhook and waits for the replies it brings; returns their texts. */
async function say(phone: string, text: string, replies = 1): Promise<string[]> {
  const before = (await double().messages(phone)).length;
  await deliver(news.callback, payload([textMessage(phone, text)])).expect(200);
  return texts(await messagesTo(phone, before + replies)).slice(before);
}

/** Signs up on WhatsApp with `email` (typed, never proven); returns the account the phone got. */
async function whatsAppSignUp(phone: string, name: string, email: string): Promise<string> {
  await say(phone, 'cadastro');
  await say(phone, name);
  expect((await say(phone, email))[0]).toMatch(new RegExp(`^Conta criada, ${name}!`));
  return (await news.deps.whatsapp.contact(phone))!.userId!;
}

/** Sends *entrar* and the address from the phone; returns the 6-digit code the phone got (if any). */
async function askLoginCode(phone: string, email: string): Promise<string> {
  expect(await say(phone, 'entrar')).toEqual(['Qual é o e-mail da sua conta?']);
  const [codeMessage, told] = await say(phone, email, 2);
  expect(told).toMatch(/^Se houver uma conta com esse e-mail/);
  return /\*(\d{6})\*/.exec(codeMessage!)![1]!;
}

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;

describe('a WhatsApp sign-up with somebody else’s address', () => {
  it('is not adopted by the owner’s verified sign-in: the attacker’s phone gets nothing of theirs, and the owner links and unlinks their own phone', async () => {
    const victim = address('victim');
    const attackerPhone = newPhone();

    // The attacker signs up on WhatsApp with the victim's address, which nobody checks.
    const attackerUser = await whatsAppSignUp(attackerPhone, 'Mallory', victim);

    // The victim signs up to the dashboard with the code mailed to them.
    const b = new Browser(web);
    const signedIn = await b.signIn(victim);
    const victimUser = signedIn.body.data.user.id as string;
    expect(signedIn.body.data.user.email).toBe(victim);
    expect(victimUser).not.toBe(attackerUser);
    expect((await b.get('/api/account/whatsapp').expect(200)).body.data).toMatchObject({ linked: false, phone: null, linkedAt: null });

    // The attacker's phone stays with the attacker's WhatsApp-only account, linked to nothing of the victim's.
    expect((await news.deps.whatsapp.contact(attackerPhone))?.userId).toBe(attackerUser);
    expect(await news.deps.whatsapp.phonesOf([victimUser])).toEqual([]);

    // The victim pays and turns WhatsApp alerts on: the attacker's phone sees none of it.
    await web.deps.users.setPlan(victimUser, 'business');
    const prefs = (await b.get('/api/account/preferences').expect(200)).body.data;
    await b.put('/api/account/preferences', { ...prefs, sectors: ['ENE'], notificationSettings: { ...prefs.notificationSettings, whatsapp: true } }).expect(200);
    const [summary] = await say(attackerPhone, 'conta');
    expect(summary).toContain('Plano: starter');
    expect(summary).not.toContain('business');
    expect(summary).not.toContain('Energia');
    expect(await news.deps.whatsapp.phonesOf([victimUser])).toEqual([]);

    // "entrar" with the victim's address sends a code to the attacker's phone, which links nothing
    // but in the victim's own signed-in session: the attacker's dashboard account cannot use it.
    const stolen = await askLoginCode(attackerPhone, victim);
    const mallory = new Browser(web);
    await mallory.signIn(address('mallory'));
    await mallory.post('/api/account/whatsapp/link', { code: stolen }).expect(404);
    expect((await news.deps.whatsapp.contact(attackerPhone))?.userId).toBe(attackerUser);

    // The victim links their own phone by a code sent to it, confirmed in the dashboard.
    const victimPhone = newPhone();
    const code = await askLoginCode(victimPhone, victim);
    const linked = await b.post('/api/account/whatsapp/link', { code }).expect(200);
    expect(linked.body.data).toEqual({ linked: true, phone: expect.stringMatching(/^5511•+\d\d$/) });
    expect((await news.deps.whatsapp.contact(victimPhone))?.userId).toBe(victimUser);
    expect((await b.get('/api/account/whatsapp').expect(200)).body.data).toMatchObject({ linked: true, phone: linked.body.data.phone });
    expect((await news.deps.whatsapp.phonesOf([victimUser])).map((c) => c._id)).toEqual([victimPhone]);

    // Nobody else can unlink it: another account (404: it has no phone), no CSRF token, another origin.
    await mallory.delete('/api/account/whatsapp').expect(404);
    await request(web.callback).delete('/api/account/whatsapp').set('Origin', web.origin).set('Cookie', b.cookie).expect(403);
    await request(web.callback).delete('/api/account/whatsapp').set('Origin', 'https://evil.example').set('Cookie', b.cookie).set('X-CSRF-Token', b.csrf).expect(403);
    await request(web.callback).delete('/api/account/whatsapp').set('Origin', web.origin).set('X-CSRF-Token', b.csrf).expect(401);
    expect((await news.deps.whatsapp.contact(victimPhone))?.userId).toBe(victimUser);

    // The victim unlinks it: their phone only; the attacker's stays with the attacker's account.
    const unlinked = await b.delete('/api/account/whatsapp').expect(200);
    expect(unlinked.body.data).toEqual({ linked: false, phone: linked.body.data.phone });
    expect((await news.deps.whatsapp.contact(victimPhone))?.userId).toBeNull();
    expect((await news.deps.whatsapp.contact(attackerPhone))?.userId).toBe(attackerUser);
    expect((await b.get('/api/account/whatsapp').expect(200)).body.data).toMatchObject({ linked: false, phone: null });
    await b.delete('/api/account/whatsapp').expect(404);
    expect((await say(victimPhone, 'conta'))[0]).toMatch(/^Este número ainda não está vinculado/);
  });

  it('lets the owner of a WhatsApp sign-up move their phone to the dashboard account they verify', async () => {
    const email = address('owner');
    const phone = newPhone();
    const whatsAppUser = await whatsAppSignUp(phone, 'Ana Souza', email);
    expect((await say(phone, 'conta'))[0]).toContain(`<${email}> (não confirmado)`);

    const b = new Browser(web);
    const dashboardUser = (await b.signIn(email)).body.data.user.id as string;
    expect(dashboardUser).not.toBe(whatsAppUser);

    // The phone is linked to an account nobody proved: it may still log in to a proven one.
    const code = await askLoginCode(phone, email);
    await b.post('/api/account/whatsapp/link', { code }).expect(200);
    expect((await news.deps.whatsapp.contact(phone))?.userId).toBe(dashboardUser);
    const [summary] = await say(phone, 'conta');
    expect(summary).toContain(`<${email}>`);
    expect(summary).not.toContain('não confirmado');
    // Linked to a proven account now: "entrar" is told so.
    expect((await say(phone, 'entrar'))[0]).toMatch(/^Este número já está vinculado a uma conta/);
  });
});
