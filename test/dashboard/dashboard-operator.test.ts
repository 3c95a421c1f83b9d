import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'undici';
import {
  dashboardModel,
  phoneViewport,
  startDashboardTestBed,
  type BrowserPage,
  type DashboardTestBed,
} from './dashboard-test-bed.ts';
import { describeWithChromium } from './require-chromium.ts';

describeWithChromium('dashboard: an operator in Chromium', () => {
  let bed: DashboardTestBed;
  let operatorId: string;
  let customerId: string;
  let signedIn: BrowserPage;

  beforeAll(async () => {
    bed = await startDashboardTestBed();
    operatorId = (await bed.gateway.operator.createAccount({ name: 'Operations', isAdmin: true }))
      .id;
    customerId = (
      await bed.gateway.operator.createAccount({ name: 'Grace Hopper', isAdmin: false })
    ).id;
    // One call, so routing health has a deployment that served.
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const response = await request(`${bed.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: dashboardModel, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.body.dump();
    signedIn = await bed.newPage();
    await signedIn.page.goto(await bed.signInLink(operatorId));
    await signedIn.page.getByRole('heading', { name: 'Overview' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await bed?.close();
  });

  it('finds an account, grants it credits with a reason and sees the ledger entry', async () => {
    const { page } = signedIn;
    await page.getByRole('link', { name: 'Accounts' }).click();
    await page.getByTestId('accounts-table').waitFor();
    await page.getByLabel('Name or id').fill('Grace');
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.getByRole('row', { name: /Grace Hopper/ });
    await row.waitFor();
    await expect.poll(() => page.getByTestId('accounts-table').getByRole('row').count()).toBe(2);
    await row.getByRole('button', { name: 'Manage Grace Hopper' }).click();
    await page.getByLabel('Credits', { exact: true }).fill('12.5');
    await page.getByLabel('Reason').fill('conference voucher');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText('Granted 12.5 credits.').waitFor();
    const ledger = page.getByTestId('ledger-table');
    await ledger.getByRole('row', { name: /conference voucher/ }).waitFor();
    expect(await ledger.getByRole('row', { name: /conference voucher/ }).textContent()).toContain(
      '12.50',
    );
    await expect.poll(async () => (await row.textContent()) ?? '').toContain('12.50');
    const balance = await bed.gateway.operator.accountBalance(customerId);
    expect(balance.balance).toBe(12_500_000);
    await bed.screenshot(page, 'operator-accounts-desktop');
  });

  it('sees routing health for the deployment that served', async () => {
    const { page } = signedIn;
    await page.getByRole('link', { name: 'Routing health' }).click();
    const table = page.getByTestId('routing-table');
    const row = table.getByRole('row', { name: new RegExp(dashboardModel) });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells).toContain(`chat/${dashboardModel}-upstream`);
    expect(cells).toContain('healthy');
    // Calls 1, failures 0 (failures arrive per class and are summed).
    expect(cells.slice(-3, -1)).toEqual(['1', '0']);
    await bed.screenshot(page, 'operator-routing-desktop');
  });

  it('searches tokens and reads the metrics', async () => {
    const { page } = signedIn;
    await page.getByRole('link', { name: 'Token search' }).click();
    await page.getByLabel('Token name or id prefix').fill('test token');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .getByRole('row', { name: /test token/ })
      .first()
      .waitFor();
    await bed.screenshot(page, 'operator-tokens-desktop');

    await page.getByRole('link', { name: 'Metrics' }).click();
    await page.getByText('Resident memory').waitFor();
    await bed.screenshot(page, 'operator-metrics-desktop');
  });

  it('reads the operator pages at 375 px', async () => {
    const { page } = signedIn;
    await page.setViewportSize(phoneViewport);
    for (const name of ['accounts', 'tokens', 'routing', 'metrics']) {
      await page.goto(`${bed.origin}/dashboard/admin/${name}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `${name} scrolls sideways`).toBe(0);
      await bed.screenshot(page, `operator-${name}-375px`);
    }
    expect(signedIn.problems).toEqual([]);
  });

  it('keeps the operator pages from an account that is not an operator', async () => {
    const visitor = await bed.newPage();
    try {
      await visitor.page.goto(await bed.signInLink(customerId));
      await visitor.page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await visitor.page.getByRole('link', { name: 'Accounts' }).count()).toBe(0);
      const status = await visitor.page.evaluate(
        "fetch('/api/dashboard/admin/accounts').then((response) => response.status)",
      );
      expect(status).toBe(403);
    } finally {
      await visitor.context.close();
    }
  });
});
