/** A Franka node under test on the fake ROS graph, driven by a manual clock. */
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
