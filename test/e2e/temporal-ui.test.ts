/**
 * Acceptance: an operator opens the Temporal UI of the dev server, searches
 * `PaymentStatus="in_custody"` and finds the payment that was just deposited, with its search
 * attributes and a readable summary. A real browser (Debian's /usr/bin/chromium driven by
 * playwright-core), the real UI, the real API and worker; nothing mocked. Screenshots go to
 * test-output/ (git-ignored) for a human to look at.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, onTestFailed } from 'vitest';
import { startReceiver } from '../helpers/receiver';
import { eventually, useAccount, useStack, validPayment } from '../helpers/stack';

const CHROMIUM = '/usr/bin/chromium';
const OUT = path.resolve(__dirname, '../../test-output');
/** Visibility is eventually consistent: how long a search may take to show a new state. */
const VISIBILITY_TIMEOUT_MS = 30_000;

// A failed delivery attempt is retried within a second, before the payment's run closes.
const stack = useStack({ env: { WEBHOOK_RETRY_INITIAL_INTERVAL: '500ms' } });
const acct = useAccount(stack);
let browser: Browser;
let page: Page;
let uiUrl: string;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/install-browser.sh first`);
  fs.mkdirSync(OUT, { recursive: true });
  fs.rmSync(path.join(OUT, 'temporal-ui-failure.png'), { force: true }); // never a stale one from an earlier run
  uiUrl = inject('temporalUiUrl');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage({ viewport: { width: 1920, height: 1080 }, timezoneId: 'UTC', locale: 'en-US' });
  page.setDefaultTimeout(15_000);
});

afterAll(async () => {
  await browser?.close();
});

async function createPayment(over: Record<string, unknown>): Promise<string> {
  const res = await stack.http.post('/api/v1/payments', { key: acct.test_api_key, body: validPayment(over) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

function listUrl(query: string): string {
  return `${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(query)}`;
}

/** The table row of one workflow in the list page. */
function rowOf(id: string) {
  return page.getByRole('row').filter({ has: page.getByRole('link', { name: id, exact: true }) });
}

/**
 * Open the list for `query` (the UI's own `?query=` link, as the search box writes it) and wait
 * until `expected` is listed, reloading while visibility catches up (eventually consistent).
 */
async function search(query: string, expected: string): Promise<void> {
  const deadline = Date.now() + VISIBILITY_TIMEOUT_MS;
  await page.goto(listUrl(query));
  for (;;) {
    try {
      await rowOf(expected).waitFor({ state: 'visible', timeout: 3_000 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${expected} never appeared in the Temporal UI for ${query}: ${(err as Error).message}`);
      await page.reload();
    }
  }
}

/** Add custom search attribute columns to the workflows table (the UI keeps the choice in localStorage). */
async function showColumns(add: string[], remove: string[]): Promise<void> {
  await page.getByTestId('workflows-summary-table-configuration-button').click();
  await page.getByText('Configure Workflows Table').waitFor();
  for (const name of remove) await page.getByRole('button', { name: `Remove ${name} column`, exact: true }).click();
  for (const name of add) await page.getByRole('button', { name: `Add ${name} column`, exact: true }).click();
  await page.getByTestId('drawer-close-button').click();
  await page.getByText('Configure Workflows Table').waitFor({ state: 'hidden' });
}

describe('Temporal UI (browser)', () => {
  beforeEach(() => {
    // Whatever the browser showed when an assertion failed, for whoever reads the CI log.
    onTestFailed(async () => {
      await page?.screenshot({ path: path.join(OUT, 'temporal-ui-failure.png'), fullPage: true }).catch(() => undefined);
      console.error(`failure screenshot: ${path.join(OUT, 'temporal-ui-failure.png')} (page ${page?.url()})`);
    });
  });

  it('search PaymentStatus="in_custody" lists the deposited payment with its search attributes and summary', async () => {
    // One payment deposited (in custody), one left waiting for its deposit (must NOT be found).
    const deposited = await createPayment({
      amount: 4321.5,
      currency: 'EUR',
      payer_email: 'alice@example.com',
      recipient_email: 'bob@example.com',
      description: 'E2E order 42',
    });
    const pending = await createPayment({ amount: 77, currency: 'USD' });
    const dep = await stack.http.post(`/api/v1/payments/${deposited}/deposit`, {
      key: acct.test_api_key,
      body: { reason: 'wire received' },
    });
    expect(dep.status, JSON.stringify(dep.body)).toBe(200);
    expect(dep.body.status).toBe('in_custody');

    // The pending payment is visible to the UI at all (so its absence below means something)…
    await search('PaymentStatus="pending_deposit"', pending);
    await expect(rowOf(deposited).count()).resolves.toBe(0);

    // …and the in_custody search finds the deposited payment, not the pending one.
    await search('PaymentStatus="in_custody"', deposited);
    await expect(rowOf(pending).count()).resolves.toBe(0);
    // The query the UI actually ran is the one we asked for (shown as a filter chip).
    await expect(page.getByRole('button', { name: /PaymentStatus\s*=\s*"in_custody"/ }).count()).resolves.toBeGreaterThan(0);

    // Show the payment's search attributes as columns, and room for them.
    await showColumns(['PaymentStatus', 'PaymentAmount', 'PaymentCurrency', 'AccountId', 'Livemode'], ['Run ID', 'Type', 'End']);
    await page.getByRole('button', { name: 'Collapse saved views' }).click();
    const row = rowOf(deposited);
    await expect(row.count()).resolves.toBe(1);
    await expect.poll(() => row.innerText(), { timeout: 10_000 }).toContain(acct.account_id);
    const rowText = await row.innerText();
    expect(rowText).toContain('in_custody');
    expect(rowText).toContain('EUR');
    expect(rowText).toContain('4321.5');
    expect(rowText).toContain(acct.account_id);
    expect(rowText).not.toContain('pending_deposit');
    await page.screenshot({ path: path.join(OUT, 'temporal-ui-list.png'), fullPage: true });

    // Open the workflow page from the list, as an operator would.
    await row.getByRole('link', { name: deposited, exact: true }).click();
    await page.waitForURL(new RegExp(`/namespaces/default/workflows/${deposited}/`));
    await page
      .getByRole('heading', { name: deposited })
      .or(page.getByText(deposited, { exact: true }))
      .first()
      .waitFor();

    // Search attributes tab: every attribute the workflow keeps current.
    await page.getByRole('tab', { name: 'Search Attributes' }).click();
    await page.waitForURL(/\/search-attributes$/);
    await page.locator('main').getByText('indexedFields').first().waitFor();
    const attrsText = await expectEventually(
      () => page.locator('main').innerText(),
      (t) => t.includes('"PaymentStatus": "in_custody"'),
    );
    expect(attrsText).toContain('"PaymentStatus": "in_custody"');
    expect(attrsText).toContain('"PaymentCurrency": "EUR"');
    expect(attrsText).toContain('"PaymentAmount": 4321.5');
    expect(attrsText).toContain(`"AccountId": "${acct.account_id}"`);
    expect(attrsText).toContain('"Livemode": false');
    expect(attrsText).not.toContain('pending_deposit');
    await page.screenshot({ path: path.join(OUT, 'temporal-ui-workflow.png'), fullPage: true });

    // User Metadata tab: the static summary and details the API set, and the workflow's current
    // details (markdown: status and amount, the money held, released and refunded, the last step
    // and its actor), answered by the running worker. The UI renders each as markdown inside its
    // own <iframe title="output" src="/render?content=…">. Nothing personal (docs/architecture.md).
    await page.getByRole('tab', { name: 'User Metadata' }).click();
    await page.waitForURL(/\/user-metadata$/);
    const summary = 'Payment 4321.50 EUR, fee 0.00';
    const details = `account ${acct.account_id}, test mode`;
    const current =
      /^in_custody\s*—\s*4321\.50 EUR · last deposit by key_\w+\s+held 4321\.50 · released 0\.00 · refunded 0\.00 · fee 0\.00 EUR$/;
    const rendered = await expectEventually(
      () => renderedMarkdown(),
      (texts) => texts.includes(summary) && texts.includes(details) && texts.some((t) => current.test(t)),
    );
    expect(rendered).toContain(summary);
    expect(rendered).toContain(details);
    expect(
      rendered.some((t) => current.test(t)),
      JSON.stringify(rendered),
    ).toBe(true);
    // Rendered as markdown, not shown as source: the status is bold text, not "**in_custody**".
    expect(rendered.join('\n')).not.toContain('**');
    // No party, no description, no reason: on this page or in any rendered block.
    const shown = `${await page.locator('main').innerText()}\n${rendered.join('\n')}`;
    for (const personal of ['alice@example.com', 'bob@example.com', 'E2E order 42', 'wire received']) expect(shown).not.toContain(personal);
    await expect(page.getByRole('heading', { name: 'Summary' }).count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: path.join(OUT, 'temporal-ui-workflow-summary.png'), fullPage: true });
  });
});

describe("a payment's page and the NextDeadline list (docs/operations.md)", () => {
  beforeEach(() => {
    onTestFailed(async () => {
      await page?.screenshot({ path: path.join(OUT, 'temporal-ui-failure.png'), fullPage: true }).catch(() => undefined);
      console.error(`failure screenshot: ${path.join(OUT, 'temporal-ui-failure.png')} (page ${page?.url()})`);
    });
  });

  it("a split payment's page shows Completed, its per-action updates, the money each activity moved and its current details, no e-mail", async () => {
    // Each delivery's series runs in the payment's run; failing the release's first attempt once
    // shows its retry there, under the delivery's own summary.
    let releaseFailed = false;
    const receiver = await startReceiver((_n, req) => {
      if (req.body?.event !== 'payment.released' || releaseFailed) return 200;
      releaseFailed = true;
      return 503;
    });
    try {
      const hook = await stack.http.post('/api/v1/webhooks/configure', { key: acct.test_api_key, body: { url: receiver.url } });
      expect(hook.status).toBe(201);
      const id = await createPayment({
        amount: 199.99,
        currency: 'USD',
        platform_fee: 5.55,
        payer_email: 'carol@example.com',
        recipient_email: 'dave@example.com',
        description: 'E2E order 43',
      });
      for (const [action, body] of [
        ['deposit', {}],
        ['dispute', { reason: 'E2E clock arrived scratched' }],
        ['resolve', { resolution: 'split', refund_amount: 88.88, reason: 'E2E half back' }],
      ] as const) {
        const res = await stack.http.post(`/api/v1/payments/${id}/${action}`, { key: acct.test_api_key, body });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      // The run closes once its read model is written and its receivers have answered.
      await stack.client.workflow.getHandle(id).result();
      await eventually(async () => ((await stack.client.workflow.getHandle(id).describe()).status.name === 'COMPLETED' ? true : undefined));

      await page.goto(`${uiUrl}/namespaces/default/workflows/${id}`);
      const main = page.locator('main');
      await main.getByText('Completed').first().waitFor();
      const history = await expectEventually(
        () => main.innerText(),
        (t) => t.includes('publish resolve → released (v4)'),
      );
      // Activities named by step, status, version and the money moved (each delivery is a workflow of its
      // own, started by a publication: its page is checked below).
      expect(history).toContain('publish deposit → in_custody (v2) — deposit: 199.99 held');
      expect(history).toContain('publish dispute → disputed (v3)');
      expect(history).toContain('publish resolve → released (v4) — split: 88.88 refunded, 111.11 released, fee 3.08');
      // Never the receiver's URL (it may carry a token), a party, the description or a reason.
      for (const personal of [receiver.url, 'carol@example.com', 'dave@example.com', 'E2E order 43', 'E2E clock', 'E2E half back'])
        expect(history).not.toContain(personal);
      await page.screenshot({ path: path.join(OUT, 'temporal-ui-payment-page.png'), fullPage: true });

      // One update per action: the timeline labels each update with its name (never `transition`).
      const labels = history.split('\n').map((l) => l.trim());
      for (const action of ['deposit', 'dispute', 'resolve']) expect(labels, `update ${action}`).toContain(action);
      expect(labels).not.toContain('transition');

      // The current details: the workflow's own, rendered.
      // The tab, as an operator clicks it (the tab's own URL carries the run id).
      await page.getByRole('tab', { name: 'User Metadata' }).click();
      await page.waitForURL(/\/user-metadata$/);
      const current =
        /^released\s*—\s*199\.99 USD · last resolve by key_\w+\s+held 0\.00 · released 111\.11 · refunded 88\.88 · fee 3\.08 USD$/;
      const rendered = await expectEventually(
        () => renderedMarkdown(),
        (texts) => texts.some((t) => current.test(t)),
      );
      expect(
        rendered.some((t) => current.test(t)),
        JSON.stringify(rendered),
      ).toBe(true);
      expect(rendered.join('\n')).not.toMatch(/@example\.com|E2E/);
      await page.screenshot({ path: path.join(OUT, 'temporal-ui-payment-details.png'), fullPage: true });

      // The payment.released delivery's own workflow (its id the delivery's): its attempt an activity
      // named by its event and configuration, never the receiver's URL (docs/webhooks.md).
      const released = await eventually(async () => {
        const list = await stack.http.get(`/api/v1/webhooks/${hook.body.webhook.id}/deliveries`, { key: acct.test_api_key });
        return (list.body.data as { id: string; event: string; status: string }[]).find(
          (d) => d.event === 'payment.released' && d.status === 'succeeded',
        );
      });
      await page.goto(`${uiUrl}/namespaces/default/workflows/${released.id}`);
      const delivery = await expectEventually(
        () => main.innerText(),
        (t) => t.includes(`deliver payment.released → ${hook.body.webhook.id}`),
      );
      expect(delivery).toContain(`deliver payment.released → ${hook.body.webhook.id}`);
      expect(delivery).not.toContain(receiver.url);
    } finally {
      await receiver.close();
    }
  });

  it('the list filtered on NextDeadline (deadlines in the next 24 hours) finds the payment due within the hour', async () => {
    const soon = await createPayment({ amount: 12, currency: 'USD', deposit_deadline_seconds: 3600 });
    const later = await createPayment({ amount: 13, currency: 'USD' });
    const in24h = new Date(Date.now() + 24 * 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const query = `NextDeadline < "${in24h}"`;
    await search(query, soon);
    await expect(rowOf(later).count()).resolves.toBe(0);
    await showColumns(['NextDeadline'], []).catch(() => undefined);
    await expect.poll(() => rowOf(soon).innerText(), { timeout: 10_000 }).toContain('pending_deposit');
    await page.screenshot({ path: path.join(OUT, 'temporal-ui-next-deadline.png'), fullPage: true });
  });
});

/** The text of every markdown block the workflow page shows (each is its own iframe). */
async function renderedMarkdown(): Promise<string[]> {
  const texts: string[] = [];
  for (const frame of await page.locator('iframe[title="output"]').all()) {
    const text = await frame
      .contentFrame()
      .locator('body')
      .innerText({ timeout: 2_000 })
      .catch(() => '');
    texts.push(text.trim());
  }
  return texts;
}

/** Read `get()` until `ok` holds (the UI renders in steps); return the last value either way. */
async function expectEventually<T>(get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await get();
  while (!ok(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await get();
  }
  return value;
}
