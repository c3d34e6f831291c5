/**
 * The Franka node records armguard MCAP episodes when `episodes_dir` is set (fake ROS graph, manual
 * clock): frames and ρ at every step, gate transitions, proposed/executed chunks, and the label from
 * ~/label_success, which closes the episode and opens the next; `armguard report` reads the folder.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import type { SetBoolRequest, TriggerResponse } from '../../src/mcap/messages.js';
import { buildFrankaNode } from '../../src/nodes/build-franka-node.js';
import { frankaTestConfig } from './support/franka-config.js';
import { frankaRig } from './support/franka-rig.js';
import { FR3_READY as READY, frankaWorld, linearTrajectory, publishStates } from './support/franka-world.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { readEpisode, type EpisodeRecord } from '../../src/episode/index.js';
import { buildReportFromDir } from '../../src/report/build-run.js';
import { EpisodeScorer } from '../../src/safety/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('Franka node episode recording (episodes_dir)', () => {
  it('records steps, chunks, gate transitions and the label, then opens the next episode; report reads them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-franka-ep-'));
    dirs.push(dir);
    const config = frankaTestConfig({ robotId: 'fr3-rec', episodesDir: dir });
    let wall = Date.UTC(2026, 10, 29, 12, 0, 0);
    const log: string[] = [];
    const { spec, clock, timers, graph, parts } = frankaRig(config, (timers) => ({
      recording: { timers, wallClock: () => new Date((wall += 1000)), log: (l) => log.push(l) },
    }));
    const episodes = parts.episodes!;
    expect(episodes).toBeDefined();
    const world = frankaWorld(graph, config);
    const labelClient = world.node.createClient<SetBoolRequest, TriggerResponse>(
      'std_srvs/srv/SetBool',
      '/armguard/label_success',
    );
    timers.advance(0.1); // discovery: the world's publishers match the node's subscriptions one by one
    await episodes.start(clock.now());
    const tick = (ms: number, tau = 5) => publishStates(world, timers, ms, { tau: [tau, tau, tau, tau, 1, 1, 1] });
    tick(100);
    const end = READY.map((q, j) => (j === 0 ? q + 0.1 : q));
    world.proposer.publish(linearTrajectory('chunk-1', clock.now(), READY, end, { steps: 10, dt: 0.05 }));
    tick(50);
    tick(20, 95); // joint torque above the 87 N·m clause: the gate holds
    expect(parts.gate.state).toBe('hold');
    const labelled = await labelClient.call({ data: true });
    expect(labelled).toEqual({ success: true, message: 'labelled success' });
    await episodes.settled();
    tick(10);
    await episodes.close(clock.now(), 'test end');

    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.mcap'))
      .sort();
    expect(files).toHaveLength(2);
    // only the unlabelled second episode gets the reminder, with the command that labels it
    const reminders = log.filter((l) => l.includes('without a success label'));
    expect(reminders).toEqual([
      expect.stringContaining(`armguard label ${join(dir, files[1]!)} --success | --failure`) as string,
    ]);
    const records: EpisodeRecord[] = [];
    let platform = '';
    const scan = await readEpisode(join(dir, files[0]!), (r) => records.push(r), {
      onStart: (s) => (platform = s.platform ?? ''),
    });
    expect(scan.end.kind).toBe('complete');
    expect(scan.errors.map((e) => e.message)).toEqual([]);
    expect(platform).toBe('fr3');
    const count = (k: EpisodeRecord['kind']) => records.filter((r) => r.kind === k).length;
    // one frame and one ρ record per sample, at its stamp: the 170 robot states (the idle step that
    // ran before the first of them brought no sample and records none)
    expect(count('frame')).toBe(170);
    expect(count('robustness')).toBe(170);
    expect(count('proposed-chunk')).toBe(1);
    expect(count('executed-chunk')).toBe(1);
    const gate = records.flatMap((r) => (r.kind === 'gate' ? [r.value] : []));
    expect(gate.some((g) => 'to' in g && g.to === 'hold')).toBe(true);
    const labels = records.flatMap((r) => (r.kind === 'label' ? [r.value] : []));
    expect(labels).toHaveLength(1);
    expect(labels[0]).toMatchObject({ success: true, source: 'operator', by: 'ros2 ~/label_success' });

    const report = await buildReportFromDir(dir, {
      scorer: new EpisodeScorer(spec),
      bootstrap: { resamples: 100, seed: 1 },
      source: dir,
      generatedAt: 'test',
    });
    // the second episode was closed at shutdown without a label: listed as unlabelled, not counted, not among unreadable files
    expect(report.unlabelled.map((u) => u.file)).toEqual([join(dir, files[1]!)]);
    expect(report.skipped).toEqual([]);
    expect(report.episodes).toBe(1);
    const first = report.rows.find((r) => r.file.endsWith(files[0]!))!;
    // labelled a success, and the joint-torque clause was violated: a hardware success-but-unsafe
    expect(first).toMatchObject({ platform: 'fr3', robotId: 'fr3-rec', success: true, safe: false });
    expect(report.gate.executedChunks).toBe(1);
  });

  it('without episodes_dir nothing records and ~/label_success says so', async () => {
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error(spec.problems.join('\n'));
    const clock = new ManualClock(5);
    const graph = new FakeRosGraph(clock, new ManualTimers(clock));
    const config = frankaTestConfig({
      robotId: 'fr3-none',
      gateMode: 'monitor',
      robotStateTopic: '/s',
      gripperTopic: '/g',
      controllerTopic: '/c',
    });
    const parts = buildFrankaNode(graph, config, spec.spec, { recording: { timers: new ManualTimers(clock) } });
    expect(parts.episodes).toBeUndefined();
    const r = await graph
      .createNode('op')
      .createClient<SetBoolRequest, TriggerResponse>('std_srvs/srv/SetBool', '/armguard/label_success')
      .call({ data: true });
    expect(r).toEqual({ success: false, message: 'no episode is recording labels' });
  });
});
