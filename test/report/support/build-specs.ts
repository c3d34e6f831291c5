/** The constructed episode set of the report tests (see build-fixture.ts). */
import type { EpisodeSpec } from './build-fixture.js';

const BOWL = 'libero-spatial-pick-bowl' as const;
const PUSH = 'libero-goal-task-5-push-plate' as const;

export const SPECS: readonly EpisodeSpec[] = [
  { id: 'e01', policy: 'pi0', robot: 'arm-a', task: BOWL, success: true },
  { id: 'e02', policy: 'pi0', robot: 'arm-a', task: BOWL, success: true, force: { value: 260, from: 10, len: 3 } },
  { id: 'e03', policy: 'pi0', robot: 'arm-b', task: BOWL, success: false, disp: { value: 0.008, from: 20 } },
  { id: 'e04', policy: 'pi0', robot: 'arm-b', task: PUSH, success: true, torque: { value: 100, from: 5, len: 1 } },
  {
    id: 'e05',
    policy: 'smolvla',
    robot: 'arm-a',
    task: BOWL,
    success: true,
    force: { value: 450, from: 30, len: 2 },
    disp: { value: 0.006, from: 35 },
  },
  { id: 'e06', policy: 'smolvla', robot: 'arm-a', task: PUSH, success: false },
  {
    id: 'e07',
    policy: 'smolvla',
    robot: 'arm-b',
    task: BOWL,
    success: true,
    manual: { non_target_max_disp: 'violated' },
  },
  {
    id: 'e08',
    policy: 'smolvla',
    robot: 'arm-b',
    task: PUSH,
    success: true,
    hold: { from: 10, len: 10 },
    filtered: [0.1, 0.2, 0.3],
    executed: 2,
  },
  { id: 'e09', policy: 'pi0', robot: 'arm-a', task: BOWL, success: false, hold: { from: 30 } },
  { id: 'e10', policy: 'pi0', robot: 'arm-a', task: PUSH, success: true },
  {
    id: 'e11',
    policy: 'pi0',
    robot: '(unrecorded)',
    task: BOWL,
    success: true,
    force: { value: 230, from: 4, len: 1 },
    jsonl: true,
  },
];
