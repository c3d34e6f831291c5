/**
 * The dashboard in headless Chromium against a running pilot loop: margins update on the page,
 * clicking e-stop holds the gate (checked on the gate object, not the page), and release works
 * only after logging in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import type { Browser, Page } from 'playwright-core';
import { ArrayClauseMargins, DEFAULT_GATE_CONFIG, Gate } from '../../src/gate/index.js';
import type { Clock } from '../../src/util/clock.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { GateRemote } from '../../src/telemetry/gate-remote.js';
import { DashboardServer } from '../../src/telemetry/dashboard/server.js';
import { artifactPath, launchChromium } from '../support/browser.js';

const clock: Clock = { now: () => performance.now() / 1000 };

describe('live dashboard in headless Chromium', () => {
  let broker: EmbeddedBroker;
  let dashboard: DashboardServer;
  let link: MqttLink;
  let browser: Browser;
  let page: Page;
  let loop: NodeJS.Timeout;
  // A generous step gap: this loop shares a busy 2-core machine with Chromium; clock jumps are tested elsewhere.
  const gate = new Gate({ ...DEFAULT_GATE_CONFIG, maxStepGap: 5 });
  const margins = new ArrayClauseMargins(['max_contact_force', 'joint_torque'], 0.2);
  const pageErrors: string[] = [];

  beforeAll(async () => {
    broker = new EmbeddedBroker({
      users: [
        { username: 'armguard', password: 'ag', roles: ['armguard'] },
        { username: 'dashboard', password: 'dash', roles: ['viewer'] },
        { username: 'alice', password: 'op-pass', roles: ['operator'] },
      ],
    });
    const url = await broker.start();
    const remote = new GateRemote(gate, clock, undefined);
    link = new MqttLink({ url, robot: 'so101-lab', username: 'armguard', password: 'ag', marginsRateHz: 30 }, remote);
    await link.start();
    remote.attach(link);
    // The pilot loop: 100 Hz monitor steps with moving margins, telemetry decimated to 30 Hz.
    const t0 = clock.now();
    loop = setInterval(() => {
      const t = clock.now() - t0;
      margins.setFinal(0, 0.6 + 0.3 * Math.sin(t * 3));
      margins.setFinal(1, 0.8);
      gate.evaluate(t, margins, null);
      link.publishMargins(t, { max_contact_force: margins.margin(0), joint_torque: margins.margin(1) }, { max_contact_force: 0.2, joint_torque: 0.2 });
    }, 10);
    dashboard = new DashboardServer({ brokerUrl: url, viewer: { username: 'dashboard', password: 'dash' } });
    const pageUrl = await dashboard.start();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
    await page.goto(pageUrl);
  });

  afterAll(async () => {
    clearInterval(loop);
    await browser?.close();
    await dashboard?.stop();
    await link?.stop();
    await broker?.stop();
  });

  const card = () => page.locator('section.card[data-robot="so101-lab"]');

  it('shows one card per robot whose margins keep updating', async () => {
    await card().waitFor({ timeout: 10_000 });
    const updates = card().locator('[data-testid=updates]');
    await expect.poll(async () => Number(await updates.textContent()), { timeout: 10_000 }).toBeGreaterThan(5);
    const first = Number(await updates.textContent());
    await expect.poll(async () => Number(await updates.textContent()), { timeout: 10_000 }).toBeGreaterThan(first + 5);
    await expect.poll(() => card().locator('[data-testid=state]').textContent(), { timeout: 5000 }).toBe('armed');
    await page.screenshot({ path: artifactPath('dashboard-phone.png'), fullPage: true });
  });

  it('clicking e-stop holds the gate (checked on the gate itself)', async () => {
    await card().locator('[data-testid=estop]').click();
    await expect.poll(() => gate.state, { timeout: 5000 }).toBe('hold');
    expect(gate.holdCause?.kind).toBe('e-stop');
    await expect.poll(() => card().locator('[data-testid=state]').textContent(), { timeout: 5000 }).toBe('hold');
  });

  it('release is unavailable before login and works after it', async () => {
    expect(await card().locator('[data-testid=release]').isDisabled()).toBe(true);
    // Bypassing the page's disabled button: the server itself refuses an unauthenticated release.
    const reply = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const ws = new WebSocket(`ws://${location.host}/ws`);
          ws.onopen = () => ws.send(JSON.stringify({ type: 'release', robot: 'so101-lab' }));
          ws.onmessage = (ev) => {
            const m = JSON.parse(String(ev.data)) as { type: string; ok?: boolean; reason?: string };
            if (m.type === 'command-result') resolve(`${m.ok}: ${m.reason}`);
          };
        }),
    );
    expect(reply).toBe('false: log in first');
    expect(gate.state).toBe('hold');

    await page.fill('#user', 'alice');
    await page.fill('#pass', 'wrong');
    await page.click('#loginBtn');
    await expect.poll(() => page.locator('[data-testid=who]').textContent(), { timeout: 5000 }).toContain('refused');
    expect(await card().locator('[data-testid=release]').isDisabled()).toBe(true);

    await page.fill('#pass', 'op-pass');
    await page.click('#loginBtn');
    await expect.poll(() => page.locator('[data-testid=who]').textContent(), { timeout: 5000 }).toContain('logged in as alice');
    await card().locator('[data-testid=release]').click();
    await expect.poll(() => gate.state, { timeout: 5000 }).toBe('armed');
    expect(pageErrors, pageErrors.join("; ")).toEqual([]);
  });
});
