/**
 * `armguard ros-node` after SIGINT/SIGTERM (serveFrankaNode on the fake ROS graph): in gating mode
 * the arm is held (an empty JointTrajectory to the controller) before the episode closes, and the
 * ROS context is shut down whatever happens.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock, ManualTimers } from '../../src/util/clock.js';
import { FakeRosGraph } from '../../drivers/ros2/fake-ros-graph.js';
import { runFrankaNodeUntilSignal, serveFrankaNode } from '../../src/cli/commands/ros-node.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { readEpisode, type EpisodeRecord } from '../../src/episode/index.js';
import { frankaTestConfig } from './support/franka-config.js';
import { controllerCollector } from './support/franka-world.js';
import { repoRoot } from '../support/paths.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const spec = (() => {
  const s = loadScoringSpec(defaultSpecPaths());
  if (!s.ok) throw new Error(s.problems.join('\n'));
  return s.spec;
})();
const io = { out: () => undefined, err: () => undefined };

describe('serveFrankaNode (armguard ros-node) shutdown', () => {
  it('gating: holds the arm, records the hold in the episode, closes it, shuts the context down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-serve-'));
    dirs.push(dir);
    const clock = new ManualClock(50);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers);
    let shutdowns = 0;
    const ctx = Object.assign(graph, { shutdown: async () => void shutdowns++ });
    const config = frankaTestConfig({ episodesDir: dir });
    const toController = controllerCollector(graph, config);
    let stop!: (why: string) => void;
    const running = serveFrankaNode(ctx, config, spec, io, new Promise<string>((r) => (stop = r)), timers);
    await new Promise((r) => setImmediate(r));
    timers.advance(0.1); // discovery
    expect(toController).toEqual([]);
    stop('SIGINT');
    expect(await running).toBe(0);
    expect(toController.at(-1)?.points).toEqual([]); // JointTrajectoryController: hold position
    expect(shutdowns).toBe(1);
    const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    expect(files).toHaveLength(1);
    const gate: string[] = [];
    const scan = await readEpisode(join(dir, files[0]!), (r: EpisodeRecord) => {
      if (r.kind === 'gate' && 'to' in r.value) gate.push(`${r.value.to}: ${r.value.reason}`);
    });
    expect(scan.end.kind).toBe('complete');
    expect(gate.at(-1)).toMatch(/^hold: e-stop from node shut down \(SIGINT\)/);
  });

  it('chunk_filter inline: no worker thread is started, trajectories are filtered on the node thread', async () => {
    const clock = new ManualClock(50);
    const graph = new FakeRosGraph(clock, new ManualTimers(clock));
    const ctx = Object.assign(graph, { shutdown: async () => undefined });
    const out: string[] = [];
    const config = frankaTestConfig({ chunkFilter: 'inline' });
    const code = await serveFrankaNode(
      ctx,
      config,
      spec,
      { out: (l) => out.push(l), err: () => undefined },
      Promise.resolve('SIGTERM'),
    );
    expect(code).toBe(0);
    expect(out.join('\n')).not.toMatch(/worker thread/);
  });

  it('monitor only (gate_mode monitor): nothing is commanded; a failure while starting still shuts the context down', async () => {
    const clock = new ManualClock(50);
    const graph = new FakeRosGraph(clock, new ManualTimers(clock));
    let shutdowns = 0;
    const ctx = Object.assign(graph, { shutdown: async () => void shutdowns++ });
    const config = frankaTestConfig({ gateMode: 'monitor' });
    const toController = controllerCollector(graph, config);
    expect(await serveFrankaNode(ctx, config, spec, io, Promise.resolve('SIGTERM'))).toBe(0);
    expect(toController).toEqual([]);
    expect(shutdowns).toBe(1);
    const errs: string[] = [];
    const bad = frankaTestConfig({ platform: 'panda', task: 'no-such-task' });
    expect(
      await serveFrankaNode(
        ctx,
        bad,
        spec,
        { out: () => undefined, err: (t) => errs.push(t) },
        Promise.resolve('SIGTERM'),
      ),
    ).toBe(1);
    expect(errs.join('\n')).toMatch(/no-such-task/);
    expect(shutdowns).toBe(2);
  });
});

describe('armguard ros-node on SIGINT/SIGTERM (rclnodejs installs its own SIGINT handler)', () => {
  it('in process: the node removes the library handler, holds the arm, closes the episode and returns 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-sigint-'));
    dirs.push(dir);
    const signals = new EventEmitter();
    const clock = new ManualClock(50);
    const timers = new ManualTimers(clock);
    // Created first, as `import rclnodejs` runs before armguard's handlers exist.
    const graph = new FakeRosGraph(clock, timers, { signals });
    const config = frankaTestConfig({ episodesDir: dir });
    const toController = controllerCollector(graph, config);
    const errs: string[] = [];
    const running = runFrankaNodeUntilSignal(
      graph,
      config,
      spec,
      { out: () => undefined, err: (l) => errs.push(l) },
      signals,
      timers,
    );
    await new Promise((r) => setImmediate(r));
    timers.advance(0.1);
    signals.emit('SIGINT');
    expect(await running).toBe(0);
    expect(errs).toEqual([]); // not "Cannot read properties of null (reading 'now')"
    expect(toController.at(-1)?.points).toEqual([]);
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBe(0);
    const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    const scan = await readEpisode(join(dir, files[0]!), () => undefined);
    expect(scan.end.kind).toBe('complete');
  });

  it('when the nodes are destroyed under it anyway (a handler that could not be removed), the episode is still closed and the node fails, not hangs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'armguard-sigint-'));
    dirs.push(dir);
    const signals = new EventEmitter();
    const clock = new ManualClock(50);
    const timers = new ManualTimers(clock);
    const graph = new FakeRosGraph(clock, timers, { signals });
    const ctx = Object.assign(graph, { removeSignalHandlers: () => undefined });
    const errs: string[] = [];
    const running = runFrankaNodeUntilSignal(
      ctx,
      frankaTestConfig({ episodesDir: dir }),
      spec,
      { out: () => undefined, err: (l) => errs.push(l) },
      signals,
      timers,
    );
    await new Promise((r) => setImmediate(r));
    timers.advance(0.1);
    signals.emit('SIGINT'); // the library's handler runs first and destroys every node
    expect(await running).toBe(1);
    expect(errs.join('\n')).toMatch(/Cannot read properties of null \(reading 'now'\)/);
    const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
    const scan = await readEpisode(join(dir, files[0]!), () => undefined);
    expect(scan.end.kind).toBe('complete');
  });

  /** Run the node in a child process, send `signal` once it is fed, and collect its result. */
  function runChild(
    signal: 'SIGINT' | 'SIGTERM',
    dir: string,
  ): Promise<{
    code: number | null;
    result: { exit: number; holdsAfterStop: number; forwardedAfterStop: number } | undefined;
    stderr: string;
    stdout: string;
  }> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', join(repoRoot, 'test/nodes/support/ros-node-process.ts'), dir],
        { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      let stderr = '';
      let sent = false;
      const deadline = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(
            `the node did not exit within 30 s of starting (signal sent: ${sent}); stdout: ${out}; stderr: ${stderr}`,
          ),
        );
      }, 30_000);
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (!sent && /^ready$/m.test(out)) {
          sent = true;
          child.kill(signal);
        }
      });
      child.on('exit', (code) => {
        clearTimeout(deadline);
        const line = /^result (.*)$/m.exec(out)?.[1];
        resolve({
          code,
          result: line
            ? (JSON.parse(line) as { exit: number; holdsAfterStop: number; forwardedAfterStop: number })
            : undefined,
          stderr,
          stdout: out,
        });
      });
    });
  }

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'end to end in a child process: %s holds the arm, completes the episode and the process exits 0 by itself',
    async (signal) => {
      const dir = mkdtempSync(join(tmpdir(), `armguard-${signal.toLowerCase()}-`));
      dirs.push(dir);
      const { code, result, stderr, stdout } = await runChild(signal, dir);
      expect(stderr).toBe('');
      // gate mode filters in a worker thread (chunk_filter default); exiting by itself, the process stopped it too
      expect(stdout).toMatch(/^armguard ros-node: chunk filter in a worker thread/m);
      expect(code).toBe(0);
      expect(result).toMatchObject({ exit: 0, forwardedAfterStop: 0 });
      expect(result!.holdsAfterStop).toBeGreaterThanOrEqual(1);
      const files = readdirSync(dir).filter((f) => f.endsWith('.mcap'));
      expect(files).toHaveLength(1);
      const gate: string[] = [];
      const scan = await readEpisode(join(dir, files[0]!), (r: EpisodeRecord) => {
        if (r.kind === 'gate' && 'to' in r.value) gate.push(`${r.value.to}: ${r.value.reason}`);
      });
      expect(scan.end.kind).toBe('complete');
      // Held at the end: by the shutdown's e-stop, or — when this loaded machine stalled the child
      // past a signal's max age first — by that latched stale-signal hold (the e-stop then adds no
      // transition; the hold trajectory above was still sent after the signal).
      expect(gate.at(-1)).toMatch(new RegExp(`^hold: (e-stop from node shut down \\(${signal}\\)|signal \\w+ stale)`));
    },
    40_000,
  );
});
