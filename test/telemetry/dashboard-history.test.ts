/**
 * The dashboard in headless Chromium, against the embedded broker and armguard's MqttLink:
 *  - history from the broker: a dashboard started AFTER the session published its margins shows
 *    the last window at once (the retained margins/history topic), not only what arrives after it
 *    connected — with no live margins at all after it started;
 *  - the e-stop reset control: a latched e-stop is listed with who pressed it, its reset button is
 *    for logged-in operators only and names them, and the list follows the gate state (the gate's
 *    own latch list is checked, not the page).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { ArrayClauseMargins, DEFAULT_GATE_CONFIG, Gate } from '../../src/gate/index.js';
import { EmbeddedBroker } from '../../src/telemetry/embedded-broker.js';
import { MqttLink } from '../../src/telemetry/mqtt-link.js';
import { GateRemote } from '../../src/telemetry/gate-remote.js';
import { DashboardServer } from '../../src/telemetry/dashboard/server.js';
import { parseMarginHistory } from '../../src/telemetry/margin-history.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { launchChromium } from '../support/browser.js';

const clock = { now: () => performance.now() / 1000 };
const ROBOT = 'arm-h1';

describe('dashboard history from the broker, and the e-stop reset control (headless Chromium)', () => {
  let broker: EmbeddedBroker;
  let link: MqttLink;
  let dashboard: DashboardServer | undefined;
  let browser: Browser;
  let page: Page;
  let loop: NodeJS.Timeout | undefined;
  const gate = new Gate({ ...DEFAULT_GATE_CONFIG, maxStepGap: 5 });
  const pageErrors: string[] = [];
  let historySamples = 0;

  beforeAll(async () => {
    broker = new EmbeddedBroker({
      users: [
        { username: 'armguard', password: 'ag-pass1', roles: ['armguard'] },
        { username: 'dashboard', password: 'dash-pass1', roles: ['viewer'] },
        { username: 'alice', password: 'op-pass1', roles: ['operator'] },
      ],
    });
    const url = await broker.start();
    const remote = new GateRemote(gate, clock, undefined);
    link = new MqttLink(
      {
        url,
        robot: ROBOT,
        username: 'armguard',
        password: 'ag-pass1',
        clientId: `armguard-${ROBOT}-${process.pid}`,
      },
      remote,
    );
    expect(await link.start(5)).toBe(true);
    remote.attach(link);
    const empty = new ArrayClauseMargins([]);
    loop = setInterval(() => {
      gate.evaluate(clock.now(), empty, null);
      remote.checkStep(clock.now());
    }, 20);

    // 12 s of an episode's margins (gate time), published before any dashboard exists.
    link.publishEpisode({ t: 100, phase: 'start', episode: `${ROBOT}-ep1`, task: 't' });
    for (let k = 0; k <= 120; k++) {
      const t = 100 + k * 0.1;
      link.publishMargins(
        t,
        { joint_torque: 0.5 + 0.3 * Math.sin(t), max_contact_force: 0.9 },
        { joint_torque: 0.1, max_contact_force: 0.1 },
      );
    }
    // The broker holds the retained history (read with a client of its own).
    const probe = await mqtt.connectAsync(url, {
      username: 'dashboard',
      password: 'dash-pass1',
      clientId: `probe-${process.pid}`,
    });
    await new Promise<void>((resolve) => {
      probe.on('message', (_topic, payload) => {
        const h = parseMarginHistory(payload.toString());
        if (h.ok && h.value.samples.at(-1)!.t >= 111.9) {
          historySamples = h.value.samples.length;
          resolve();
        }
      });
      void probe.subscribeAsync(topicFor(ROBOT, 'margins/history'));
    });
    await probe.endAsync(true);

    // Now the dashboard starts: it has seen none of those margins itself.
    dashboard = new DashboardServer({ brokerUrl: url, viewer: { username: 'dashboard', password: 'dash-pass1' } });
    const pageUrl = await dashboard.start();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
    await page.goto(pageUrl);
  }, 60_000);

  afterAll(async () => {
    clearInterval(loop);
    await browser?.close();
    await dashboard?.stop();
    await link?.stop();
    await broker?.stop();
  });

  const card = () => page.locator(`section.card[data-robot="${ROBOT}"]`);

  it('a dashboard started after the margins were published shows their history from the broker at once', async () => {
    // 12 s at the history's 10 Hz: 100.0 … 112.0
    expect(historySamples).toBe(121);
    await card().waitFor({ timeout: 10_000 });
    const updates = card().locator('[data-testid=updates]');
    await expect
      .poll(async () => Number(await updates.textContent()), { timeout: 5000 })
      .toBeGreaterThanOrEqual(historySamples);
    // the newest sample is the last one published, on the episode's clock
    expect(await card().locator('[data-testid=last]').textContent()).toBe('episode t = 12.00 s');
    const legend = await card().locator('.legend span').allTextContents();
    expect(legend.map((x) => x.split(' ')[0]).sort()).toEqual(['joint_torque', 'max_contact_force']);
  });

  it('a latched e-stop is listed with who pressed it; its reset names them, needs a login, and the list follows the gate state', async () => {
    await expect.poll(() => gate.state, { timeout: 5000 }).toBe('armed');
    await card().locator('[data-testid=estop]').click();
    await expect.poll(() => gate.state, { timeout: 5000 }).toBe('hold');
    const pressedBy = gate.eStops[0]!.by;
    expect(pressedBy).toMatch(/dashboard/);
    const latch = card().locator('[data-testid=estop-latch]');
    await expect.poll(() => latch.count(), { timeout: 5000 }).toBe(1);
    expect(await latch.textContent()).toContain(`E-STOP pressed by ${pressedBy}`);
    const reset = card().locator('[data-testid=estop-reset]');
    expect(await reset.textContent()).toBe(`Reset e-stop pressed by ${pressedBy}`);
    expect(await reset.isDisabled()).toBe(true);

    // A release alone never clears an e-stop.
    await page.fill('#user', 'alice');
    await page.fill('#pass', 'op-pass1');
    await page.click('#loginBtn');
    await expect
      .poll(() => page.locator('[data-testid=who]').textContent(), { timeout: 5000 })
      .toContain('logged in as alice');
    await card().locator('[data-testid=release]').click();
    // the gate's refusal comes back on the events topic
    await expect
      .poll(() => card().locator('[data-testid=reply]').textContent(), { timeout: 5000 })
      .toMatch(/release refused: .*e-stop .* is latched/);
    expect(gate.eStops.map((e) => e.by)).toEqual([pressedBy]);
    expect(gate.state).toBe('hold');

    expect(await reset.isDisabled()).toBe(false);
    await reset.click();
    await expect.poll(() => gate.eStops.length, { timeout: 5000 }).toBe(0);
    // the page learns it from the gate state: the row goes, the reply says the gate confirmed it
    await expect.poll(() => latch.count(), { timeout: 5000 }).toBe(0);
    await expect
      .poll(() => card().locator('[data-testid=reply]').textContent(), { timeout: 5000 })
      .toMatch(/^estop-reset: confirmed by the gate/);
    await card().locator('[data-testid=release]').click();
    await expect.poll(() => gate.state, { timeout: 5000 }).toBe('armed');
    await expect.poll(() => card().locator('[data-testid=estop-ack]').isVisible(), { timeout: 5000 }).toBe(false);
    expect(pageErrors, pageErrors.join('; ')).toEqual([]);
  });
});
