/**
 * `armguard run so101 --emulator --duration 3`, in-process, end to end on real parts: the Feetech
 * emulator with the simulated arm behind a socat pty pair (real serialport driver), the embedded
 * MQTT broker, a Node policy client (ChunkClient over MqttChunkClientTransport), an operator e-stop
 * over MQTT, and the episode MCAP file read back with the episode reader.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand, parseRunArgs } from '../../src/cli/commands/run.js';
import { readEpisode, type EpisodeRecord } from '../../src/episode/index.js';
import { ChunkClient } from '../../src/runtime/chunk-client.js';
import { systemClock, systemTimers } from '../../src/platform/system-clock.js';
import { MqttChunkClientTransport } from '../../src/telemetry/mqtt-chunk-transport.js';
import { topicFor } from '../../src/telemetry/topics.js';
import { RecordingClient } from '../support/mqtt-client.js';
import { CAL, TASK, emulatedRunArgs, runDir, startArmguard } from '../support/run-process.js';

const tempSetup = (): { dir: string; access: string } => runDir('armguard-run-');

/** Collects output lines and resolves waits when a matching line arrives (with a timeout). */
class LineIo {
  readonly lines: string[] = [];
  private waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  private push(t: string): void {
    for (const line of t.split('\n')) {
      this.lines.push(line);
      this.waiters = this.waiters.filter((w) => {
        const m = line.match(w.re);
        if (m) w.resolve(m);
        return !m;
      });
    }
  }
  readonly io = { out: (t: string) => this.push(t), err: (t: string) => this.push(t) };
  waitFor(re: RegExp, seconds = 10): Promise<RegExpMatchArray> {
    for (const l of this.lines) {
      const m = l.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no line matching ${re} within ${seconds} s; got:\n${this.lines.join('\n')}`)),
        seconds * 1000,
      );
      this.waiters.push({ re, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }
}

async function readAll(path: string): Promise<EpisodeRecord[]> {
  const out: EpisodeRecord[] = [];
  await readEpisode(path, (r) => out.push(r));
  return out;
}

describe('armguard run so101 --emulator', () => {
  it('gates policy chunks over MQTT, holds on an MQTT e-stop and records the episode', async () => {
    const { dir, access } = tempSetup();
    const eps = join(dir, 'episodes');
    const lio = new LineIo();
    const done = runCommand.run(
      emulatedRunArgs(
        access,
        ...['--broker-port', '0', '--episodes-dir', eps, '--robot-id', 'arm7', '--duration', '3', '--max-age', '0.5'],
      ),
      lio.io,
    );
    const url = (await lio.waitFor(/^mqtt: (mqtt:\/\/\S+)/, 15))[1]!;
    const episodePath = (await lio.waitFor(/^episode: (\S+\.mcap)/))[1]!;

    const operator = await RecordingClient.connect(url, 'alice', 'alice-secret');
    await operator.subscribe(topicFor('arm7', 'gate'));
    await operator.subscribe(topicFor('arm7', 'margins'));
    // Decimated per-clause margins, one entry per monitored clause.
    await operator.waitFor((t) => t === topicFor('arm7', 'margins'), 5, 'a margins message');
    const margins = JSON.parse(operator.messages.find((m) => m.topic === topicFor('arm7', 'margins'))!.payload) as {
      margins: Record<string, number | null>;
    };
    expect(Object.keys(margins.margins)).toEqual(expect.arrayContaining(['joint_torque', 'self_collision_free']));
    const transport = await MqttChunkClientTransport.connect({
      url,
      robot: 'arm7',
      username: 'vla',
      password: 'vla-secret',
    });
    const policy = new ChunkClient(transport, systemTimers, 2);

    // Small moves of the pan joint from the arm's rest pose (mid-range = 0 rad on every joint).
    const chunk = (id: string, pan: number) => ({
      v: 1 as const,
      id,
      stamp: systemClock.now(),
      horizon: 5,
      joints: 6,
      dt: 0.02,
      targets: Array.from({ length: 5 }, (_, k) => [(pan * (k + 1)) / 5, 0, 0, 0, 0, 0]),
    });
    const r1 = await policy.propose(chunk('c1', 0.05));
    expect(['executed', 'filtered'], r1.reason).toContain(r1.verdict);
    expect(r1.targets).toHaveLength(5);
    const r2 = await policy.propose(chunk('c2', 0.1));
    expect(['executed', 'filtered'], r2.reason).toContain(r2.verdict);
    const bad = await policy.propose({ ...chunk('c3', 0), targets: [[0, 0, 0, 0, 0, 0]] });
    expect(bad).toMatchObject({ verdict: 'rejected', code: 'mis-sized' });

    await operator.publish(topicFor('arm7', 'cmd/estop'), JSON.stringify({ v: 1, reason: 'test stop' }));
    await operator.waitFor(
      (t, p) => t === topicFor('arm7', 'gate') && (JSON.parse(p) as { state: string }).state === 'hold',
      5,
      'retained gate state hold',
    );
    const afterStop = await policy.propose(chunk('c4', 0.05));
    expect(afterStop.verdict).toBe('held');
    expect(afterStop.targets).toBeUndefined();

    await transport.close();
    await operator.end();
    expect(await done).toBe(0);
    expect(lio.lines.some((l) => /stopped \(--duration 3 s elapsed\); arm held/.test(l))).toBe(true);

    const records = await readAll(episodePath);
    const frames = records.filter((r) => r.kind === 'frame');
    expect(frames.length).toBeGreaterThan(20);
    expect(records.filter((r) => r.kind === 'robustness').length).toBe(frames.length);
    const proposed = records.flatMap((r) => (r.kind === 'proposed-chunk' ? [r.value.id] : []));
    expect(proposed).toEqual(['c1', 'c2', 'c4']);
    const executed = records.flatMap((r) => (r.kind === 'executed-chunk' ? [r.value] : []));
    expect(executed.map((e) => e.proposedId)).toEqual(['c1', 'c2']);
    expect(executed[0]!.targets).toHaveLength(30);
    const gate = records.flatMap((r) => (r.kind === 'gate' ? [r.value] : []));
    const toHold = gate.find((g) => g.kind === 'transition' && g.to === 'hold');
    expect(toHold).toMatchObject({ kind: 'transition', to: 'hold' });
    expect(toHold && toHold.kind === 'transition' ? toHold.reason : '').toMatch(/e-stop.*mqtt/i);
    expect(gate.some((g) => g.kind === 'event' && g.event === 'chunk-rejected' && /c3/.test(g.detail ?? ''))).toBe(
      true,
    );
    expect(gate.some((g) => g.kind === 'event' && g.event === 'chunk-held' && /c4/.test(g.detail ?? ''))).toBe(true);
    const end = records.find((r) => r.kind === 'end');
    expect(end?.kind === 'end' ? end.value.reason : '').toMatch(/--duration/);
    const index = readFileSync(join(eps, 'episodes.jsonl'), 'utf8').trim().split('\n');
    expect(index).toHaveLength(1);
    expect(JSON.parse(index[0]!)).toMatchObject({ robotId: 'arm7', task: TASK, platform: 'so101', state: 'complete' });
  }, 30_000);
});

describe('armguard run: arguments', () => {
  it('names what is wrong with the command line and the files', async () => {
    const { dir, access } = tempSetup();
    const base = emulatedRunArgs(access);
    const errs = async (args: string[]) => {
      const r = await parseRunArgs(args);
      return r.ok ? [] : r.errors;
    };
    expect(await errs(['franka', '--emulator'])).toEqual([expect.stringMatching(/unknown platform 'franka'/)]);
    expect(await errs([...base, '--port', '/dev/ttyX'])).toEqual([
      expect.stringMatching(/exactly one of --port <tty> or --emulator/),
    ]);
    expect(await errs([...base.slice(0, 4), '--task', 'no-such-task', '--access', access])).toEqual([
      expect.stringMatching(/unknown task 'no-such-task'/),
    ]);
    expect(await errs([...base, '--rate', 'fast'])).toEqual([expect.stringMatching(/--rate: expected a rate in Hz/)]);
    expect(await errs([...base, '--gate', 'maybe'])).toEqual([expect.stringMatching(/--gate: expected on or off/)]);
    expect(await errs([...base, '--workspace', '0,0,0,1,1'])).toEqual([
      expect.stringMatching(/--workspace: expected x0,y0,z0,x1,y1,z1/),
    ]);
    expect(await errs([...base, '--obstacles', '0.2,0,0.1,0.03;0.1,0.1,0.1'])).toEqual([
      expect.stringMatching(/--obstacles: expected 'x,y,z,r' spheres .* got '0\.1,0\.1,0\.1'/),
    ]);
    expect(await errs([...base, '--obstacles', '0.2,0,0.1,0'])).toEqual([
      expect.stringMatching(/--obstacles: .*r > 0/),
    ]);
    expect(await errs(['so101', '--emulator', '--calibration', CAL, '--task', TASK])).toEqual([
      expect.stringMatching(/embedded broker needs --access/),
    ]);
    const badAccess = join(dir, 'bad-access.yaml');
    writeFileSync(badAccess, 'users:\n  - { username: vla, password: "short", roles: [pilot] }\n');
    const accessErrors = await errs([
      'so101',
      '--emulator',
      '--calibration',
      CAL,
      '--task',
      TASK,
      '--access',
      badAccess,
    ]);
    expect(accessErrors).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/bad-access\.yaml:2 field 'users\[0\]\.password': expected at least 8 characters/),
        expect.stringMatching(
          /users\[0\]\.roles\[0\].*expected one of armguard, operator, policy, viewer, got 'pilot'/,
        ),
      ]),
    );
    expect(await errs([...base.slice(0, 6), '--access', access, '--dashboard', '8080', '--duration', '-1'])).toEqual([
      expect.stringMatching(/--duration: expected a positive number/),
    ]);
    expect(await errs([...base, '--dead-man', '0'])).toEqual([
      expect.stringMatching(/--dead-man: expected seconds in \[0\.1, 60\], got '0'/),
    ]);
    expect(await errs([...base, '--warning-band', 'maybe'])).toEqual([
      expect.stringMatching(/--warning-band: expected on or off, got 'maybe'/),
    ]);
    expect(await errs([...base, '--warning-band-run-on', '-0.1'])).toEqual([
      expect.stringMatching(/--warning-band-run-on: expected seconds in \[0, 1\]/),
    ]);
    expect(await errs([...base, '--warning-band', 'off', '--warning-band-run-on', '0.1'])).toEqual([
      expect.stringMatching(/--warning-band-run-on needs the warning band on/),
    ]);
    expect(await errs([...base, '--chunk-filter', 'gpu'])).toEqual([
      expect.stringMatching(/--chunk-filter: expected worker or inline, got 'gpu'/),
    ]);
    expect(await errs([...base, '--self-clearance', 'far'])).toEqual([
      expect.stringMatching(/--self-clearance: expected metres in \[0, 0\.1\] or off, got 'far'/),
    ]);
    expect(await errs([...base, '--held-tilt', 'yes'])).toEqual([
      expect.stringMatching(/--held-tilt: expected on or off, got 'yes'/),
    ]);
    expect(await errs([...base, '--planning-margin', '-0.001'])).toEqual([
      expect.stringMatching(/--planning-margin: expected metres in \[0, 0\.05\], got '-0\.001'/),
    ]);
    const barrierDefaults = await parseRunArgs(base);
    expect(
      barrierDefaults.ok && [
        barrierDefaults.options.heldTilt,
        barrierDefaults.options.selfClearance,
        barrierDefaults.options.planningMargin,
      ],
    ).toEqual([true, undefined, undefined]);
    const barrierSet = await parseRunArgs([
      ...base,
      '--self-clearance',
      'off',
      '--held-tilt',
      'off',
      '--planning-margin',
      '0.005',
    ]);
    expect(
      barrierSet.ok && [
        barrierSet.options.heldTilt,
        barrierSet.options.selfClearance,
        barrierSet.options.planningMargin,
      ],
    ).toEqual([false, null, 0.005]);
    const clearance = await parseRunArgs([...base, '--self-clearance', '0.02']);
    expect(clearance.ok && clearance.options.selfClearance).toBe(0.02);
    const band = await parseRunArgs([...base, '--warning-band-run-on', '0.2']);
    expect(band.ok && [band.options.warningBand, band.options.warningBandRunOn]).toEqual([true, 0.2]);
    const bandOff = await parseRunArgs([...base, '--warning-band', 'off']);
    expect(bandOff.ok && bandOff.options.warningBand).toBe(false);
    const deadMan = await parseRunArgs([...base, '--dead-man', '1.5']);
    expect(deadMan.ok && deadMan.options.deadManS).toBe(1.5);
    const ok = await parseRunArgs([
      ...base,
      '--gate',
      'off',
      '--workspace',
      '-0.5,-0.5,-0.01,0.5,0.5,0.6',
      '--obstacles',
      '0.2,0,0.1,0.03;0.1,-0.1,0.05,0.02',
    ]);
    expect(ok.ok && ok.options).toMatchObject({
      gating: false,
      workspace: [-0.5, -0.5, -0.01, 0.5, 0.5, 0.6],
      obstacles: [0.2, 0, 0.1, 0.03, 0.1, -0.1, 0.05, 0.02],
      rate: 100,
      robotId: 'so101',
      arm: { kind: 'emulator' },
    });
  });
});

describe('armguard run as a child process', () => {
  it('SIGINT holds the arm, closes the episode file and exits 0', async () => {
    const { dir, access } = tempSetup();
    const eps = join(dir, 'episodes');
    const run = startArmguard([
      'run',
      ...emulatedRunArgs(access, '--broker-port', '0', '--episodes-dir', eps, '--max-age', '0.5'),
    ]);
    const episodePath = (await run.waitFor(/^episode: (\S+\.mcap)/, 40))[1]!;
    await run.waitFor(/^\[armguard\] episode /, 10);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.lines.some((l) => /stopped \(SIGINT\); arm held/.test(l))).toBe(true);
    const records = await readAll(episodePath);
    expect(records.some((r) => r.kind === 'frame')).toBe(true);
    expect(
      records.some(
        (r) =>
          r.kind === 'gate' &&
          r.value.kind === 'event' &&
          r.value.event === 'shutdown-hold' &&
          r.value.detail === 'SIGINT',
      ),
    ).toBe(true);
    const end = records.find((r) => r.kind === 'end');
    expect(end?.kind === 'end' ? end.value.reason : '').toBe('SIGINT');
  }, 60_000);
});
