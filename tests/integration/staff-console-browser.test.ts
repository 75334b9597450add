/**
 * The staff console in a real browser (issue 38): headless Chromium driven by Playwright, against
 * the web service on a port of loopback and Mailpit, on a database of its own (so that this file's
 * owner is the only active owner: the last-owner rule is seen as it is) and a copy of the page's
 * build of its own (another build of the checkout meanwhile would replace the chunks). An owner follows the
 * invitation's link, signs in with the mailed code, reaches the console from the dashboard's
 * header and sees every section; invites a support agent, who accepts by the mailed link and sees
 * the support desk alone; changes the agent's roles; is refused, clearly, as the last owner; pages
 * through the audit log; removes the agent. A customer sees that the console is for staff, and a
 * visitor is sent to sign in and back. Every page is checked with axe-core (no serious or critical
 * violation), with no console error and nothing wider than the screen, at a desktop's and a phone's
 * width (375 px), and screenshotted into reports/screenshots/staff-*.png.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { inviteMember } from '../../operations/staff/members';
import { checkPage, launchChromium, openTab, PHONE, signInWithCode, snapshotWebBuild, takeConsoleErrors, type Tab } from '../helpers/browser';
import { waitForMessagesTo } from '../helpers/mailpit';
import { startWebService, type WebService } from '../helpers/web';

let web: WebService;
let browser: Browser;
let build: { dir: string; remove(): void } | undefined;
const tabs: Tab[] = [];

beforeAll(async () => {
  build = await snapshotWebBuild();
  [web, browser] = await Promise.all([
    startWebService({ MONGODB_DB: `staff_console_${randomUUID().slice(0, 8)}`, WEB_DIST_DIR: build.dir }, { listen: true }),
    launchChromium(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all(tabs.map((t) => t.context.close().catch(() => undefined)));
  await browser?.close();
  await web?.deps.mongo.conn.db?.dropDatabase().catch(() => undefined);
  await web?.close();
  build?.remove();
});

const address = (who: string) => `${who}-${randomUUID().slice(0, 8)}@example.com`;
const owner = address('owner');
const agent = address('agent');

async function tab(): Promise<Tab> {
  const t = await openTab(browser);
  tabs.push(t);
  return t;
}

const ALL_SECTIONS = ['Support desk', 'Reports', 'News', 'Quiz', 'AI', 'Operations', 'Staff'];
const sectionLinks = async (page: Page, nav = 'Staff console sections') => (await page.getByRole('navigation', { name: nav }).getByRole('list').first().getByRole('link').allTextContents()).map((s) => s.trim());
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name });
const memberRow = (page: Page, email: string) => page.locator(`tr[data-member="${email}"]`);
const auditRows = (page: Page) => page.locator('tr[data-audit-id]');

let ownerTab: Tab;
let agentTab: Tab;

describe('the staff console', () => {
  it("lets an owner in by the invitation's link, from the dashboard's header, and shows every section", async () => {
    // The first owner, as the CLI makes it (`staff add … --role owner`).
    await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: owner, roles: ['owner'] });
    ownerTab = await tab();
    const { page } = ownerTab;
    await page.goto(`${web.origin}/sign-in#${new URLSearchParams({ email: owner }).toString()}`);
    await signInWithCode(page, owner);
    await page.waitForURL('**/account/keys');
    await page.getByRole('banner').getByRole('link', { name: 'Staff console' }).click();
    await page.waitForURL('**/staff');
    await heading(page, 'Staff console').waitFor();
    expect(await sectionLinks(page)).toEqual(ALL_SECTIONS);
    expect(await page.title()).toBe('Staff console · Newsletter Platform');
    await checkPage(ownerTab, 'staff-home');

    // Each section is a route of its own; the focus moves to the new page's heading.
    const nav = page.getByRole('navigation', { name: 'Staff console sections' });
    for (const [name, path, title] of [
      ['Support desk', '/staff/support', 'Support desk'],
      ['Reports', '/staff/reports', 'Reports'],
      ['News', '/staff/news', 'News'],
      ['Quiz', '/staff/quiz', 'Quiz'],
      ['AI', '/staff/ai', 'AI'],
      ['Operations', '/staff/ops', 'Operations'],
    ] as const) {
      await nav.getByRole('link', { name, exact: true }).click();
      await page.waitForURL(`**${path}`);
      await heading(page, title).waitFor();
      await page.locator('main h1:focus').waitFor();
    }
    await checkPage(ownerTab, 'staff-section-placeholder');
    await nav.getByRole('link', { name: 'Staff', exact: true }).click();
    await heading(page, 'Staff members').waitFor();
    await memberRow(page, owner).waitFor();
    expect(await memberRow(page, owner).textContent()).toContain('Active');
  });

  it('invites a support agent: invited, mailed, and in the audit log', async () => {
    const { page } = ownerTab;
    // No role chosen: told, nothing sent.
    await page.getByLabel('E-mail address').fill(agent);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Choose at least one role.').waitFor();
    await page.getByRole('group', { name: 'Roles' }).getByRole('checkbox', { name: 'Support agent' }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('status').getByText(`Invitation sent to ${agent}.`).waitFor();
    await memberRow(page, agent).waitFor();
    expect(await memberRow(page, agent).textContent()).toMatch(/Support agent.*Invited/);
    await auditRows(page).first().filter({ hasText: agent }).waitFor();
    expect(await auditRows(page).first().textContent()).toMatch(new RegExp(`${owner}Invited${agent}no member.*Support agent.*Invited`));
    await checkPage(ownerTab, 'staff-members');

    // Invited again: told, in words, that it is a member already.
    await page.getByLabel('E-mail address').fill(agent);
    await page.getByRole('group', { name: 'Roles' }).getByRole('checkbox', { name: 'Quiz administrator' }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('alert').getByText(`${agent} is already a staff member (Invited). Change its roles instead.`).waitFor();
    expect(takeConsoleErrors(ownerTab)).toEqual([expect.stringContaining('status of 409')]);
    await page.getByRole('group', { name: 'Roles' }).getByRole('checkbox', { name: 'Quiz administrator' }).uncheck();
    await page.getByLabel('E-mail address').fill('');
  });

  it("lets the agent in by the mailed link, and shows the support desk alone", async () => {
    const [mail] = await waitForMessagesTo(agent);
    const link = /(http\S+\/sign-in#email=\S+)/.exec(mail!.text)?.[1];
    expect(link).toBeDefined();
    agentTab = await tab();
    const { page } = agentTab;
    await page.goto(link!);
    await signInWithCode(page, agent);
    await page.waitForURL('**/account/keys');
    await page.getByRole('banner').getByRole('link', { name: 'Staff console' }).click();
    await heading(page, 'Staff console').waitFor();
    expect(await sectionLinks(page)).toEqual(['Support desk']);
    await checkPage(agentTab, 'staff-agent-home');
    await page.getByRole('link', { name: 'Support desk', exact: true }).first().click();
    await heading(page, 'Support desk').waitFor();
    await checkPage(agentTab, 'staff-agent-support');

    // A section the roles do not open, by its address.
    await page.goto(`${web.origin}/staff/members`);
    await heading(page, 'No access to this section').waitFor();
    await checkPage(agentTab, 'staff-agent-no-access');
  });

  it("changes the agent's roles in a dialog; the agent's console follows, and the audit log tells it", async () => {
    const { page } = ownerTab;
    await page.reload();
    await memberRow(page, agent).filter({ hasText: 'Active' }).waitFor();
    await memberRow(page, agent).getByRole('button', { name: `Change roles of ${agent}` }).click();
    const dialog = page.getByRole('dialog', { name: `Roles of ${agent}` });
    await dialog.waitFor();
    // The focus is in the dialog.
    await dialog.locator(':focus').waitFor();
    await dialog.getByRole('checkbox', { name: 'Support manager' }).check();
    await dialog.getByRole('checkbox', { name: 'News administrator' }).check();
    await checkPage(ownerTab, 'staff-members-roles-dialog');
    await dialog.getByRole('button', { name: 'Save roles' }).click();
    await page.getByRole('status').getByText(`Roles of ${agent} changed.`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    // The focus is back on the button that opened the dialog.
    await memberRow(page, agent).getByRole('button', { name: `Change roles of ${agent}` }).and(page.locator(':focus')).waitFor();
    await memberRow(page, agent).filter({ hasText: 'Support manager' }).waitFor();
    const entry = auditRows(page).first();
    await entry.filter({ hasText: 'Changed roles' }).waitFor();
    expect(await entry.textContent()).toMatch(new RegExp(`${owner}Changed roles${agent}Support agentActive.*Support managerSupport agentNews administratorActive`));
    await checkPage(ownerTab, 'staff-members-audit');

    await agentTab.page.goto(`${web.origin}/staff`);
    await heading(agentTab.page, 'Staff console').waitFor();
    expect(await sectionLinks(agentTab.page)).toEqual(['Support desk', 'Reports', 'News']);
  });

  it('refuses, clearly, to demote or remove the last active owner', async () => {
    const { page } = ownerTab;
    // Removing oneself: confirmed first, then refused (409 last_owner) and told beside the list.
    await memberRow(page, owner).getByRole('button', { name: `Remove ${owner}` }).click();
    const confirm = page.getByRole('dialog', { name: `Remove ${owner}?` });
    await confirm.waitFor();
    // A destructive action starts on Cancel.
    await confirm.getByRole('button', { name: 'Cancel' }).and(page.locator(':focus')).waitFor();
    await checkPage(ownerTab, 'staff-members-remove-confirm');
    await confirm.getByRole('button', { name: 'Remove' }).click();
    const refusal = page.getByTestId('members-refusal');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(`${owner} is the last active owner. Make another member an owner first`);
    expect(takeConsoleErrors(ownerTab)).toEqual([expect.stringContaining('status of 409')]);
    await checkPage(ownerTab, 'staff-members-last-owner');

    // Giving the owner role up: refused in the dialog, which stays open.
    await memberRow(page, owner).getByRole('button', { name: `Change roles of ${owner}` }).click();
    const dialog = page.getByRole('dialog', { name: `Roles of ${owner}` });
    await dialog.getByRole('checkbox', { name: 'Owner' }).uncheck();
    await dialog.getByRole('checkbox', { name: 'Support agent' }).check();
    await dialog.getByRole('button', { name: 'Save roles' }).click();
    await dialog.getByRole('alert').getByText('is the last active owner').waitFor();
    expect(takeConsoleErrors(ownerTab)).toEqual([expect.stringContaining('status of 409')]);
    await checkPage(ownerTab, 'staff-members-last-owner-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await memberRow(page, owner).textContent()).toContain('Owner');
  });

  it('pages through the audit log, newest first', async () => {
    const { page } = ownerTab;
    for (let i = 0; i < 21; i++) await inviteMember({ ...web.deps, mailer: undefined }, { actor: 'cli', email: address(`bulk${i}`), roles: ['quiz.admin'] });
    await page.reload();
    await heading(page, 'Staff members').waitFor();
    const pages = page.getByRole('navigation', { name: 'Audit log: pages' });
    await pages.waitFor();
    expect(await auditRows(page).count()).toBe(20);
    const first = await auditRows(page).first().getAttribute('data-audit-id');
    expect(await auditRows(page).first().textContent()).toMatch(/^.*Operator \(CLI\)Invited/);
    await pages.getByRole('button', { name: 'Older' }).click();
    await pages.getByText('Page 2').waitFor();
    // Page 2 holds none of page 1's entries.
    await page.locator(`tr[data-audit-id="${first}"]`).waitFor({ state: 'detached' });
    const ids = await auditRows(page).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-audit-id')!));
    expect(ids.length).toBeGreaterThan(0);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(ids.every((id) => id < first!)).toBe(true);
    await checkPage(ownerTab, 'staff-members-audit-page-2');
    await pages.getByRole('button', { name: 'Newer' }).click();
    await pages.getByText('Page 1').waitFor();
    // The page number is drawn at the click, its entries when they come: the newest is on page 1 alone.
    await page.locator(`tr[data-audit-id="${first}"]`).waitFor();
    expect(await auditRows(page).first().getAttribute('data-audit-id')).toBe(first);
  });

  it('removes the agent after a confirmation; the agent is signed out', async () => {
    const { page } = ownerTab;
    await memberRow(page, agent).getByRole('button', { name: `Remove ${agent}` }).click();
    await page.getByRole('dialog', { name: `Remove ${agent}?` }).getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').getByText(`${agent} was removed from the staff (1 session ended).`).waitFor();
    await memberRow(page, agent).waitFor({ state: 'detached' });
    await auditRows(page).first().filter({ hasText: 'Removed' }).waitFor();
    await agentTab.page.reload();
    await agentTab.page.waitForURL('**/sign-in');
    expect(agentTab.consoleErrors).toEqual([]);
  });

  it('works in Portuguese at a phone width', async () => {
    const { page } = ownerTab;
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Ver em português' }).click();
    await heading(page, 'Membros da equipe').waitFor();
    expect(await sectionLinks(page, 'Seções do console da equipe')).toEqual(['Central de suporte', 'Relatórios', 'Notícias', 'Quiz', 'IA', 'Operações', 'Equipe']);
    await checkPage(ownerTab, 'staff-members-pt-phone', { phone: false });
    await memberRow(page, owner).getByRole('button', { name: `Alterar funções de ${owner}` }).click();
    await page.getByRole('dialog', { name: `Funções de ${owner}` }).waitFor();
    await checkPage(ownerTab, 'staff-members-roles-dialog-pt-phone', { phone: false });
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: 'Console da equipe' }).first().click();
    await heading(page, 'Console da equipe').waitFor();
    await checkPage(ownerTab, 'staff-home-pt-phone', { phone: false });
    await page.getByRole('button', { name: 'View in English' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(ownerTab.consoleErrors).toEqual([]);
  });

  it('tells a customer that the console is for staff, with a way back', async () => {
    const customer = await tab();
    const { page } = customer;
    await page.goto(`${web.origin}/sign-in`);
    await signInWithCode(page, address('reader'));
    await page.waitForURL('**/account/keys');
    await heading(page, 'API keys').waitFor();
    // No link to the console in a customer's header, and no request that would fail for one.
    expect(await page.getByRole('banner').getByRole('link', { name: 'Staff console' }).count()).toBe(0);
    expect(customer.consoleErrors).toEqual([]);
    await page.goto(`${web.origin}/staff/support`);
    await heading(page, 'This area is for staff members').waitFor();
    // GET /api/staff/me answered 403, which the browser reports; nothing else.
    expect(takeConsoleErrors(customer)).toEqual([expect.stringContaining('status of 403')]);
    await checkPage(customer, 'staff-not-staff');
    await page.getByRole('link', { name: 'Back to your dashboard' }).click();
    await heading(page, 'API keys').waitFor();
  });

  it('sends a visitor to sign in, and back to the console after', async () => {
    const visitor = await tab();
    const { page } = visitor;
    await page.goto(`${web.origin}/staff/members`);
    await page.waitForURL('**/sign-in');
    await signInWithCode(page, owner);
    await page.waitForURL('**/staff/members');
    await heading(page, 'Staff members').waitFor();
    expect(visitor.consoleErrors).toEqual([]);
  });
});
