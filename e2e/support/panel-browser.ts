/**
 * What the panel's browser tests share: Debian's Chromium and its flags, the folder screenshots
 * go to (gitignored), and a page that keeps what it was told.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { packageRoot } from '../../app/core/package-root.js';

export const CHROMIUM = process.env.PYTHON_SESSION_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'];
export const ARTIFACTS = join(packageRoot(), 'e2e', 'artifacts');
/** A `skip` reason when there is no Chromium to drive. */
export const NO_CHROMIUM: string | false = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

export interface RecordingPage {
  browser: Browser;
  page: Page;
  /** Errors the page threw. */
  pageErrors: string[];
  /** The text of every API answer the page received (not the event stream), once all are read. */
  allAnswers(): Promise<string[]>;
}

/** Chromium with one page that records its errors and the API answers it gets. */
export async function openRecordingPage(): Promise<RecordingPage> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  const answers: string[] = [];
  const reading: Promise<void>[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('response', (response) => {
    if (!new URL(response.url()).pathname.startsWith('/api/') || response.url().endsWith('/api/events')) return;
    reading.push(response.text().then((text) => void answers.push(text), () => undefined));
  });
  return {
    browser,
    page,
    pageErrors,
    async allAnswers() {
      await Promise.all(reading);
      return answers;
    },
  };
}
