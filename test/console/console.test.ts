/**
 * The operator console in a real browser (puppeteer-core driving the Chromium of @sparticuz/chromium) against the
 * partner stack: a read key is refused at sign-in; a partner mint is followed from the queue to its steps (and found
 * by the broker's id); a redemption held for review is resumed from its page with a client assigned and completes;
 * an action without the session's anti-forgery token is refused and audited; a workflow terminated with a reason
 * shows it in its history and in the audit. With CONSOLE_SCREENSHOTS=1 it also writes a screenshot of each page to
 * docs/console/ (how the committed ones are made).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { maxUint256, parseEventLogs } from 'viem';
import { issuerAbi, stockTokenAbi } from '../../contracts/abi';
import { eventually } from '../support/temporal';
import { brokerGet, brokerPost, ISSUER_ID, startPartnerStack, WALLET_INDEX, type PartnerStack } from '../partner/support';

let stack: PartnerStack;
let browser: Browser;
let page: Page;

const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/console') : undefined;

async function shoot(name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const url = (route: string) => `${stack.apiUrl}${route}`;
const text = (selector = 'main') => page.$eval(selector, (element) => (element as unknown as { innerText: string }).innerText);

async function signIn(target: Page, key: string): Promise<void> {
  await target.goto(url('/console/sign-in'));
  await target.type('#key', key);
  await Promise.all([target.waitForNavigation(), target.click('form.signin button')]);
}

/** Opens `route` and reloads it until `check` holds for the main text. */
async function until(route: string, check: (main: string) => boolean, timeoutMs = 60_000): Promise<string> {
  return await eventually(async () => {
    await page.goto(url(route));
    const main = await text();
    expect(check(main)).toBe(true);
    return main;
  }, timeoutMs);
}

beforeAll(async () => {
  stack = await startPartnerStack();
  // Several contexts (the operator's and a stranger's): without --single-process.
  browser = await puppeteer.launch({ executablePath: await chromium.executablePath(), args: chromium.args.filter((arg) => arg !== '--single-process'), headless: true });
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  page.on('dialog', (dialog) => void dialog.accept());
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('a read key is refused at sign-in: no session, the pages still ask to sign in', async () => {
  const context = await browser.createBrowserContext();
  try {
    const stranger = await context.newPage();
    await signIn(stranger, stack.api.keys.read);
    expect(await stranger.$eval('[role=alert]', (element) => element.textContent)).toContain('A read key cannot sign in to the console');
    expect(await context.cookies()).toEqual([]);
    await stranger.goto(url('/console/workflows'));
    expect(stranger.url()).toBe(url('/console/sign-in'));
    await signIn(stranger, stack.api.keys.write);
    expect(await stranger.$eval('[role=alert]', (element) => element.textContent)).toContain('A write key cannot sign in');
    await signIn(stranger, 'isk_admin_not-a-key');
    expect(await stranger.$eval('[role=alert]', (element) => element.textContent)).toContain('Unknown or revoked API key');
  } finally {
    await context.close();
  }
  await signIn(page, stack.api.keys.admin);
  expect(page.url()).toBe(url('/console'));
  const [cookie] = await browser.defaultBrowserContext().cookies();
  expect(cookie).toMatchObject({ name: 'console_session', httpOnly: true, sameSite: 'Strict', path: '/console' });
  expect(cookie!.value).not.toContain(stack.api.keys.admin);
  await shoot('overview');
}, 60_000);

test('a partner mint is followed from the queue to its steps, and found by the broker’s id', async () => {
  const submitted = await brokerPost(stack, `/v1/accounts/${stack.accountId}/tokenization/mint`, {
    underlying_symbol: 'AAPL',
    qty: '1.5',
    issuer: ISSUER_ID,
    network: 'ethereum',
    wallet_address: stack.wallet,
  });
  expect(submitted.status).toBe(201);
  const tokenizationId = submitted.body.tokenization_request_id as string;
  await eventually(async () => expect((await brokerGet(stack, `/v1/accounts/${stack.accountId}/tokenization/requests/${tokenizationId}`)).body.status).toBe('completed'), 60_000);

  await until('/console/partner-requests?type=mint', (main) => main.includes('completed'));
  await shoot('partner-requests');
  await Promise.all([page.waitForNavigation(), page.click('main table tbody tr a')]);
  const main = await until(page.url().slice(stack.apiUrl.length), (shown) => shown.includes('activity mintPartnerTokens') && shown.includes('workflow completed'));
  expect(main).toContain(tokenizationId);
  expect(main).toMatch(/"status": "completed"/); // the broker's record, fetched live
  await shoot('partner-request');

  // Any id reaches the same request: the broker's tokenization request id, in the find box.
  await page.type('.find input', tokenizationId);
  await Promise.all([page.waitForNavigation(), page.click('.find button')]);
  expect(await text('h1')).toMatch(/^Mint /);
  await Promise.all([page.waitForNavigation(), page.click('main .fields a[href^="/console/workflows/"]')]);
  expect(await text('h1')).toMatch(/^partner-mint-/);
  expect(await text('#history')).toContain('completed');
  await shoot('workflow');
  await page.goto(`${page.url()}?view=timeline`);
  await shoot('workflow-timeline');
}, 120_000);

test('a redemption held for review is resumed from its page with a client assigned, and completes', async () => {
  const admin = { 'x-api-key': stack.api.keys.admin };
  const adminAccount = (await stack.database.db.query<{ account_id: string }>(`SELECT account_id FROM api_keys WHERE scope = 'admin' AND account_id IS NOT NULL LIMIT 1`)).rows[0]!.account_id;
  const stray = stack.chain.walletOf(6);
  const registered = await fetch(url(`/v1/accounts/${adminAccount}/wallets`), { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ chainId: 'ethereum-1', address: stray.account.address }) });
  expect([200, 202]).toContain(registered.status);
  await eventually(async () => {
    const wallets = (await (await fetch(url(`/v1/accounts/${adminAccount}/wallets`), { headers: admin })).json()) as { wallets: { address: string; state: string }[] };
    expect(wallets.wallets).toContainEqual(expect.objectContaining({ address: stray.account.address.toLowerCase(), state: 'registered' }));
  }, 30_000);
  const token = stack.tokens.AAPLon!;
  const amount = 10n ** 16n;
  const wait = async (hash: `0x${string}`) => await stack.chain.client.waitForTransactionReceipt({ hash });
  await wait(await stack.chain.walletOf(WALLET_INDEX).writeContract({ address: token, abi: stockTokenAbi, functionName: 'transfer', args: [stray.account.address, amount] }));
  await wait(await stray.writeContract({ address: token, abi: stockTokenAbi, functionName: 'approve', args: [stack.chain.deployment.issuer, maxUint256] }));
  const burn = await wait(await stray.writeContract({ address: stack.chain.deployment.issuer, abi: issuerAbi, functionName: 'redeem', args: [token, amount] }));
  expect(parseEventLogs({ abi: issuerAbi, eventName: 'IssuerRedeem', logs: burn.logs })).toHaveLength(1);

  // Reached by the burn's tx hash; held until a person assigns a client.
  const held = await until(`/console/partner-requests/${burn.transactionHash}`, (main) => main.includes('needs_review') && main.includes('Assign client and resume'));
  expect(held).toContain('no client is linked');
  await shoot('redemption-held');
  await page.type('form[action="/console/actions/partner-resume"] input[name=clientId]', stack.clientId);
  await page.type('form[action="/console/actions/partner-resume"] input[name=reason]', 'wallet belongs to the sandbox client');
  await Promise.all([page.waitForNavigation(), page.click('form[action="/console/actions/partner-resume"] button')]);
  expect(await text('.notice')).toContain(`Assigned ${stack.clientId} and resumed`);
  const done = await until(`/console/partner-requests/${burn.transactionHash}`, (main) => /State\s+completed/.test(main), 60_000);
  expect(done).toContain(stack.clientId);
  await page.goto(url('/console/redemptions'));
  await shoot('redemptions');
}, 180_000);

test('an action without the anti-forgery token is refused and audited; terminate with a reason shows in history and audit', async () => {
  const watcher = 'chain-watcher-1';
  await page.goto(url(`/console/workflows/${watcher}`));
  // A forged form: the same action without the session's token.
  await page.$eval('form[action="/console/actions/workflow-terminate"] input[name=csrf]', (input) => input.remove());
  await page.type('form[action="/console/actions/workflow-terminate"] input[name=reason]', 'forged');
  await Promise.all([page.waitForNavigation(), page.click('form[action="/console/actions/workflow-terminate"] button')]);
  expect(await text('h1')).toBe('Refused');
  expect((await stack.temporal.client.workflow.getHandle(watcher).describe()).status.name).toBe('RUNNING');

  await page.goto(url(`/console/workflows/${watcher}`));
  await shoot('chain-watcher');
  await page.type('form[action="/console/actions/workflow-terminate"] input[name=reason]', 'operator test: watcher replaced');
  await Promise.all([page.waitForNavigation(), page.click('form[action="/console/actions/workflow-terminate"] button')]);
  expect(await text('.notice')).toContain(`Terminated ${watcher}`);
  expect((await stack.temporal.client.workflow.getHandle(watcher).describe()).status.name).toBe('TERMINATED');
  expect(await text('#history')).toContain('operator test: watcher replaced');

  await page.goto(url('/console/audit'));
  const audit = await text();
  expect(audit).toMatch(/workflow-terminate\s+chain-watcher-1\s+operator test: watcher replaced\s+done/);
  expect(audit).toMatch(/workflow-terminate\s+chain-watcher-1\s+forged\s+refused\s+missing or wrong anti-forgery token/);
  await shoot('audit');
  for (const [route, name] of [
    ['/console/workflows', 'workflows'],
    ['/console/chains', 'chains'],
    ['/console/controls', 'controls'],
  ] as const) {
    await page.goto(url(route));
    await shoot(name);
  }
  // Signing out ends the session on the server: the old cookie no longer opens a page.
  await Promise.all([page.waitForNavigation(), page.click('header form[action="/console/actions/sign-out"] button')]);
  expect(page.url()).toBe(url('/console/sign-in'));
  await page.goto(url('/console'));
  expect(page.url()).toBe(url('/console/sign-in'));
}, 120_000);
