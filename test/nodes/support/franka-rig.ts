/** A Franka node under test on the fake ROS graph, driven by a manual clock. */
import { readdirSync } from 'node:fs';
import { FakeRosGraph } from '../../../drivers/ros2/fake-ros-graph.js';
import { defaultSpecPaths, loadScoringSpec } from '../../../src/cli/spec-files.js';
import { buildFrankaNode } from '../../../src/nodes/build-franka-node.js';
import type { FrankaNodeConfig } from '../../../src/nodes/franka-node-config.js';
import type { ScoringSpec } from '../../../src/safety/index.js';
import { ManualClock, ManualTimers } from '../../../src/util/clock.js';

export interface FrankaRig {
  readonly spec: ScoringSpec;
  readonly clock: ManualClock;
  readonly timers: ManualTimers;
  readonly graph: FakeRosGraph;
  readonly parts: ReturnType<typeof buildFrankaNode>;
}

/**
 * The node built from `config` and the shipped spec on a fake graph whose manual clock starts at
 * 100 s; `extras` (given the rig's timers, e.g. for recording) go to buildFrankaNode.
 */
export function frankaRig(
  config: FrankaNodeConfig,
  extras?: (timers: ManualTimers) => Parameters<typeof buildFrankaNode>[3],
): FrankaRig {
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!spec.ok) throw new Error(spec.problems.join('\n'));
  const clock = new ManualClock(100);
  const timers = new ManualTimers(clock);
  const graph = new FakeRosGraph(clock, timers);
  const parts = buildFrankaNode(graph, config, spec.spec, extras?.(timers));
  return { spec: spec.spec, clock, timers, graph, parts };
}

/**
 * Label the recording episode a success (as ~/label_success does), close the node's episodes and
 * return the file name of the first episode in `dir`.
 */
export async function closeLabelledEpisode(rig: FrankaRig, dir: string): Promise<string> {
  const episodes = rig.parts.episodes!;
  const now = rig.clock.now();
  const labelled = episodes.finishEpisode({ source: 'operator', by: 'ros2 ~/label_success', success: true }, now, true);
  if (!labelled.ok) throw new Error('the episode could not be labelled');
  await episodes.settled();
  await episodes.close(now, 'test end');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.mcap'))
    .sort()[0]!;
}
