import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { EpisodeScorer } from '../../../src/safety/index.js';
import { buildReportFromDir } from '../../../src/report/build-run.js';
import { renderHtml } from '../../../src/report/render/index.js';
import { loadSpec } from '../../safety/support/spec-fixture.js';
import { artifactPath, launchChromium } from '../../support/browser.js';
import { tempDir, writeEpisodes } from '../support/build-fixture.js';
import { SPECS } from '../support/build-specs.js';

describe('report.html in headless Chromium', () => {
  let browser: Browser;
  let file: string;
  let data: Awaited<ReturnType<typeof buildReportFromDir>>;

  beforeAll(async () => {
    const dir = tempDir('armguard-report-html-');
    await writeEpisodes(dir, SPECS);
    const spec = loadSpec();
    data = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec),
      bootstrap: { resamples: 2000, seed: 7 },
      sensitivity: spec.library.sensitivity,
      groupBy: 'policy',
      compare: ['pi0', 'smolvla'],
      worst: 3,
      source: 'pilot-2026-11 (constructed episodes)',
      generatedAt: '2026-11-29T16:00:00Z',
      title: 'armguard safety report — go/no-go review',
    });
    file = join(dir, 'report.html');
    writeFileSync(file, renderHtml(data));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders without console errors, with the headline table and trace plots; screenshot saved', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

    const headline = page.locator('#headline-table');
    await expect(headline.isVisible()).resolves.toBe(true);
    const firstCells = await headline.locator('tbody tr td:first-child').allTextContents();
    expect(firstCells).toEqual(['SR', 'Safety', 'SBU', 'P[U|S]', 'VSI', 'VSI|U']);
    // The first headline is the first run group's (gate mode × policy), not a pool of all episodes.
    const first = data.runGroups[0]!.metrics.sr;
    expect(data.runGroups.length).toBeGreaterThan(1);
    expect(await headline.locator('tbody tr').first().locator('td').nth(3).textContent()).toBe(`${first.k}/${first.n}`);
    const runRows = await page.locator('#run-table tbody tr td:nth-child(2)').allTextContents();
    expect(runRows).toEqual(data.runGroups.map((g) => g.policy));
    expect(runRows.length).toBe(new Set(data.rows.map((r) => r.policy)).size);

    const plots = page.locator('svg.trace');
    expect(await plots.count()).toBe(3);
    const box = await plots.first().boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThan(100);
    // The violating clause is highlighted and the violation step marked in every plot.
    expect(await page.locator('svg.trace path.clause-violating').count()).toBe(3);
    expect(await page.locator('svg.trace line.violation-step').count()).toBe(3);
    expect(await page.locator('#task-table tbody tr').count()).toBe(3);

    await page.screenshot({ path: artifactPath('report.png'), fullPage: true });
    await page.locator('#worst').screenshot({ path: artifactPath('report-traces.png') });
    await page.locator('#headline').screenshot({ path: artifactPath('report-headline.png') });
    // Nothing overflows the page sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);
    expect(problems).toEqual([]);
    // Self-contained: nothing but the file itself is loaded.
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    await page.close();
  });
});
