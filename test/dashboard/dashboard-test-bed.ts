import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { request } from 'undici';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  adminToken,
  startTestGateway,
  testModel,
  type TestGateway,
} from '../support/test-gateway.ts';
import { chromiumPath } from './require-chromium.ts';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Screenshots of every page, kept as CI artifacts (gitignored). */
export const screenshotFolder = path.join(repositoryRoot, 'test-artifacts', 'dashboard');

/** The model the bed's fake upstream serves, in the chat-completions dialect. */
export const dashboardModel = 'dash-chat';

/** A phone's width: every page must be readable in one column at 375 px. */
export const phoneViewport = { width: 375, height: 812 };
export const desktopViewport = { width: 1280, height: 900 };

/** A client token anywhere: `sy_` and the 38 base62 characters of src/auth/client-token.ts. */
export const clientTokenPattern = /sy_[0-9A-Za-z]{38}/;

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /**
   * What must not happen: script errors, console errors other than the browser's own line for
   * a refused call (a 401 or 403 the test asks for), requests to another origin.
   */
  problems: string[];
}

export interface DashboardTestBed {
  gateway: TestGateway;
  fake: FakeUpstream;
  /** The gateway's origin as the browser sees it. */
  origin: string;
  browser: Browser;
  /** A one-time sign-in link for the account, made through the admin API. */
  signInLink(accountId: string): Promise<string>;
  newPage(viewport?: { width: number; height: number }): Promise<BrowserPage>;
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The dashboard's pages built into a folder of their own, a gateway serving them on a port the
 * system picks (with a fake upstream and file storage), and Chromium.
 */
export async function startDashboardTestBed(): Promise<DashboardTestBed> {
  const pages = await mkdtemp(path.join(tmpdir(), 'switchyard-dashboard-pages-'));
  await promisify(execFile)(process.execPath, [
    path.join(repositoryRoot, 'scripts', 'build-dashboard.mjs'),
    `--outdir=${pages}`,
  ]);
  const fake = await startFakeUpstream();
  const gateway = await startTestGateway(
    {
      providers: { chat: { kind: 'openai-chat', baseUrl: fake.url } },
      models: [testModel(dashboardModel, 'chat')],
      storage: {},
    },
    { dashboardDirectory: pages },
  );
  const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const origin = new URL(address).origin;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  await mkdir(screenshotFolder, { recursive: true });

  return {
    gateway,
    fake,
    origin,
    browser,
    async signInLink(accountId) {
      const response = await request(
        `${origin}/api/admin/accounts/${encodeURIComponent(accountId)}/sign-in-links`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: '{}',
        },
      );
      const body = (await response.body.json()) as { url?: string };
      if (response.statusCode !== 201 || body.url === undefined) {
        throw new Error(`no sign-in link: ${response.statusCode} ${JSON.stringify(body)}`);
      }
      // The link names the configured base URL; the gateway listens where the system put it.
      const link = new URL(body.url);
      return `${origin}${link.pathname}${link.hash}`;
    },
    async newPage(viewport = desktopViewport) {
      const context = await browser.newContext({ viewport });
      // Shorter than a test's own timeout, so a failure names the element it waited for.
      context.setDefaultTimeout(8000);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        if (message.text().startsWith('Failed to load resource')) return;
        problems.push(`console: ${message.text()}`);
      });
      page.on('request', (sent) => {
        const url = new URL(sent.url());
        if (url.protocol === 'data:' || url.protocol === 'blob:') return;
        if (url.origin !== origin) problems.push(`request to another origin: ${sent.url()}`);
      });
      return { context, page, problems };
    },
    async screenshot(page, name) {
      await page.screenshot({ path: path.join(screenshotFolder, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close();
      await gateway.close();
      await fake.close();
      await rm(pages, { recursive: true, force: true });
    },
  };
}

/** Everything the page keeps where a script or a later visitor could read it. */
export async function readPageState(browserPage: BrowserPage): Promise<string> {
  const { page, context } = browserPage;
  const stored = await page.evaluate(
    '(() => JSON.stringify({ html: document.documentElement.outerHTML, ' +
      'local: Object.entries(localStorage), session: Object.entries(sessionStorage), ' +
      'cookies: document.cookie }))()',
  );
  const cookies = await context.cookies();
  return `${String(stored)}\n${JSON.stringify(cookies)}`;
}
