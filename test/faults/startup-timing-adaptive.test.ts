/**
 * Issue 14 item 13: false holds from timing after the start-up measurement. The documented dry run
 * (emulated servos behind a real pty) measures its read cycle at start-up; then the servos' replies
 * slow down step by step — as a host whose load rises after start-up, or an adapter that starts
 * to lag — until a sample is older than the start-up floor would allow. The floor follows the reads
 * (up to the ceiling), so the run does not hold; with the start-up floor fixed (--max-age, what the
 * derivation gave before) the same slow-down holds on a stale signal. A bus that stops answering
 * still holds, within the ceiling.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSession } from '../../src/cli/compose/session.js';
import { readEpisode } from '../../src/episode/index.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { emulatedRunArgs, runDir } from '../support/run-process.js';
import { startEmulatedSession, waitUntil } from '../support/run-session.js';

/** The servos' extra reply delay during the start-up measurement (s): reads of ≈ 7 ms. */
const START_DELAY_S = 0.005;
/**
 * Where the slow-down ends, relative to the floor in force at start-up: a reply delay of 1.3 × the
 * floor makes every read longer than the floor, so every sample is older than it (× ≈ 1.3 plus the
 * period) — what the fixed start-up floor held on. Relative, so a slow start-up on a loaded host
 * (a larger floor) is slowed past too.
 */
const END_FACTOR = 1.3;
const CEILING_S = 1;
/**
 * The slow-down's end is capped so the floor it makes (2 × (period + slowest read)) stays under the
 * ceiling, and the bus's per-attempt reply timeout is above the cap: what is injected is a slow bus,
 * never a silent one. (With the run's 0.1 s timeout, a loaded host's start-up floor of 0.09 s made
 * 1.3 × it a 0.118 s delay — every read timed out and the hold was a bus fault, not a stale signal.)
 */
const END_CAP_S = 0.4;
const BUS_TIMEOUT_S = 1;
const slowEnd = (floor: number): number => Math.min(END_FACTOR * floor, END_CAP_S);

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** `minMaxAge` undefined: the floor derived from the measured reads (and following them). Log lines start with their time (ms). */
async function start(minMaxAge: number | undefined) {
  const { s, log } = await startEmulatedSession(
    {
      minMaxAge,
      arm: { kind: 'emulator', replyDelayS: START_DELAY_S },
      maxAgeCeilingS: CEILING_S,
      busTimeoutS: BUS_TIMEOUT_S,
      // The arm's own heartbeat watchdog is not what is tested: out of the way, as in startup-timing.test.ts.
      armWatchdogS: 5,
    },
    { stampLog: true },
  );
  cleanup.push(() => s.stop('test cleanup'));
  const timing = log.find((l) => / timing: \d+ state reads/.test(l)) ?? '';
  const m = /max ([\d.]+) ms at 100 Hz → max-age floor ([\d.]+) s/.exec(timing);
  if (!m) throw new Error(`no timing line: ${log.join('\n')}`);
  return { s, log, startSlowest: Number(m[1]) / 1000, startFloor: Number(m[2]) };
}

/** Slow the emulated replies from START_DELAY_S to `endS` in 20 even steps, 100 ms apart, then stay there 1.5 s. */
async function slowDown(s: RunSession, endS: number): Promise<void> {
  const emulator = s.conn.emulated!.emulator;
  for (let k = 1; k <= 20; k++) {
    emulator.extraReplyDelayS = START_DELAY_S + ((endS - START_DELAY_S) * k) / 20;
    await sleep(100);
  }
  await sleep(1500);
}

const holds = (log: readonly string[]) => log.filter((l) => / → hold: /.test(l));

/**
 * Holds the slow-down can explain: any hold but a stale signal, and a stale one no older than twice
 * what the injected delay makes a sample (period + the delay's end, doubled for the host's own
 * scheduling). Older than that, the host itself stalled the process past anything injected — on
 * this shared 2-core machine it did once, a 0.3 s stall beside two other timing test files: the
 * limitation hardware.md (Timing) states, not what this test injects.
 */
const injectedHolds = (log: readonly string[], endDelayS: number) =>
  holds(log).filter((l) => {
    const stale = /stale \(age ([\d.]+) s > max/.exec(l);
    return !stale || (Number(stale[1]) <= 2 * (0.01 + endDelayS) && !hostStalledRead(log, l, endDelayS));
  });

/**
 * A stale hold the host caused although the sample's age was small when it fired: the floor change
 * logged within 0.5 s after it names a read slower than any the injection makes (its end delay plus
 * 20 ms for the ≈ 7 ms read itself and the scheduling). Seen once under a full parallel test run on
 * the shared machine: a 97.6 ms read, held at age 0.060 s > the 0.050 s floor, the floor raised 50 ms
 * later. (With the start-up floor fixed there is no floor change line, so the old behaviour's holds
 * are never excused by this.)
 */
function hostStalledRead(log: readonly string[], hold: string, endDelayS: number): boolean {
  const at = Number(/^(\d+) /.exec(hold)?.[1]);
  return log.some((l) => {
    const m =
      /^(\d+) timing: max-age floor [\d.]+ s, watchdog [\d.]+ s \(slowest of the last 200 reads ([\d.]+) ms;/.exec(l);
    if (!m) return false;
    const t = Number(m[1]);
    return t >= at && t <= at + 500 && Number(m[2]) / 1000 > endDelayS + 0.02;
  });
}

describe('the max-age floor follows reads that slow down after start-up (dry run, emulator over a pty)', () => {
  it('replies slowing to 1.3 × the start-up floor: the floor rises with the reads (logged, in the episode), no false hold', async () => {
    const { s, log, startFloor } = await start(undefined);
    expect(log.find((l) => / timing: \d+ state reads/.test(l))).toMatch(
      /; the floor follows slower reads up to the ceiling 1 s \(--max-age-ceiling\)$/,
    );
    await slowDown(s, slowEnd(startFloor));
    expect(injectedHolds(log, slowEnd(startFloor)), log.join('\n')).toEqual([]);
    const changes = log
      .map((l) =>
        / timing: max-age floor ([\d.]+) s, watchdog ([\d.]+) s \(slowest of the last 200 reads ([\d.]+) ms;/.exec(l),
      )
      .filter((m) => m !== null);
    expect(changes.length).toBeGreaterThan(0);
    const last = changes[changes.length - 1]!;
    const [floor, watchdog, read] = [Number(last[1]), Number(last[2]), Number(last[3]) / 1000];
    // The slowed reads made samples older than the start-up floor allowed (what held before):
    expect(0.01 + read).toBeGreaterThan(startFloor);
    expect(floor).toBeGreaterThan(startFloor);
    expect(floor).toBeLessThanOrEqual(CEILING_S);
    expect(watchdog).toBeCloseTo(Math.max(0.1, 2 * floor), 3);
    // Each change is in the episode too, as a gate event.
    const path = s.episodes.path!;
    await s.stop('test done');
    const recorded: string[] = [];
    await readEpisode(
      path,
      (r) =>
        void (
          r.kind === 'gate' &&
          r.value.kind === 'event' &&
          r.value.event === 'timing' &&
          recorded.push(r.value.detail ?? '')
        ),
      { kinds: ['gate'] },
    );
    expect(recorded.length).toBe(log.filter((l) => / timing: max-age floor /.test(l)).length); // reads go on until stop
    const lastLogged = log.filter((l) => / timing: max-age floor /.test(l)).pop()!;
    expect(lastLogged.endsWith(recorded[recorded.length - 1]!)).toBe(true);
  }, 60_000);

  it('control: the same slow-down with the start-up floor fixed (--max-age, as derived before) holds on a stale signal', async () => {
    // A floor as a quiet start-up derives at this delay, fixed, as the derivation left it before.
    const fixed = 0.06;
    const { s, log } = await start(fixed);
    expect(log.find((l) => / timing: \d+ state reads/.test(l))).toMatch(/--max-age; derived would be .*; fixed$/);
    await slowDown(s, END_FACTOR * fixed);
    expect(
      holds(log).some((l) => /signal \S+ stale \(age [\d.]+ s > max [\d.]+ s\)/.test(l)),
      log.join('\n'),
    ).toBe(true);
  }, 60_000);

  it('a bus that stops answering still holds, within the ceiling', async () => {
    const { s, log, startFloor } = await start(undefined);
    await slowDown(s, slowEnd(startFloor));
    expect(injectedHolds(log, slowEnd(startFloor)), log.join('\n')).toEqual([]);
    const before = holds(log).length;
    const stoppedAt = performance.now();
    for (const servo of s.conn.emulated!.emulator.allServos) servo.responsive = false;
    // A host-stall hold before the stop (see injectedHolds) is released here, so the stop's own hold shows.
    if (before > 0) await s.act('release');
    await waitUntil(() => holds(log).length > before, 5, 'the hold of a silent bus');
    const hold = holds(log)[before]!;
    const heldAt = Number(hold.split(' ')[0]);
    // Stale once the newest sample is older than the floor (≤ the ceiling); one control period and
    // a loaded host's scheduling on top. (A bus timeout may name the fault first: also a hold.)
    expect(heldAt - stoppedAt, hold).toBeLessThan((CEILING_S + 0.15) * 1000);
    const stale = /stale \(age [\d.]+ s > max ([\d.]+) s\)/.exec(hold);
    if (stale) expect(Number(stale[1])).toBeLessThanOrEqual(CEILING_S);
    expect(s.gate.state).toBe('hold');
  }, 60_000);
});

describe('--max-age-ceiling', () => {
  it('is the bound of the derived floor; with a fixed --max-age it is refused (nothing to bound)', async () => {
    const { access } = runDir('armguard-fault-adaptive-');
    const p = await parseRunArgs(emulatedRunArgs(access, '--max-age-ceiling', '0.3'));
    expect(p.ok && p.options).toMatchObject({ maxAgeCeilingS: 0.3 });
    const both = await parseRunArgs(emulatedRunArgs(access, '--max-age-ceiling', '0.3', '--max-age', '0.1'));
    expect(!both.ok && both.errors).toEqual([
      'armguard run: --max-age-ceiling bounds the derived max-age floor; with --max-age the floor is fixed (give one of them)',
    ]);
    const bad = await parseRunArgs(emulatedRunArgs(access, '--max-age-ceiling', '0'));
    expect(!bad.ok && bad.errors).toEqual(["armguard run: --max-age-ceiling: expected seconds in (0, 5], got '0'"]);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
