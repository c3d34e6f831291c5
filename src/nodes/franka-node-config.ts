/**
 * The armguard Franka node's parameters, in the ROS 2 parameter-file layout
 * (`<node name>: ros__parameters: {...}`) so one file serves `ros2 launch` and `armguard ros-node`.
 * Every problem names the file, the line and the parameter.
 */
import { YamlReader } from '../schema/yaml-reader.js';
import type { InputError } from '../util/errors.js';
import type { TrackingInput } from '../../drivers/tracking/ros-adapters.js';

export interface FrankaNodeConfig {
  nodeName: string;
  robotId: string;
  platform: 'fr3' | 'panda';
  task: string;
  gating: boolean;
  diagnosticsRate: number;
  idleStepRate: number;
  robotStateTopic: string;
  gripperTopic: string;
  controllerTopic: string;
  /** Table plane height in the robot base frame (m), for the CBF filter in gating mode. */
  tableHeight: number;
  /** Bystanders tracked for non_target_disp_max (empty: the clause is not applicable). */
  bystanders: string[];
  tracking: TrackingInput | undefined;
}

const KEYS = [
  'robot_id', 'platform', 'task', 'gating', 'diagnostics_rate', 'idle_step_rate', 'robot_state_topic', 'gripper_topic',
  'controller_topic', 'table_height', 'tracking', 'bystanders', 'vrpn_trackers', 'mocap4r2_topic', 'apriltag_tags',
] as const;

export function parseFrankaNodeConfig(text: string, file: string, nodeName = 'armguard'): { ok: true; config: FrankaNodeConfig } | { ok: false; errors: InputError[] } {
  const r = new YamlReader(file, text);
  const root = r.map(r.root, '(root)');
  const nodeEntry = root?.get(nodeName);
  if (root && !nodeEntry) r.fail(r.root, nodeName, `expected the node's section '${nodeName}:' with 'ros__parameters:'`);
  const section = nodeEntry ? r.map(nodeEntry.value, nodeName, ['ros__parameters']) : undefined;
  const params = section?.get('ros__parameters');
  const p = params ? r.map(params.value, `${nodeName}.ros__parameters`, KEYS) : undefined;
  const field = (k: string) => `${nodeName}.ros__parameters.${k}`;
  const str = (k: string, dflt?: string) => {
    const e = p?.get(k);
    if (!e) return dflt ?? (p ? r.fail(params?.value, field(k), 'required parameter missing') : undefined);
    return r.string(e.value, field(k));
  };
  const num = (k: string, dflt: number) => {
    const e = p?.get(k);
    return e ? r.number(e.value, field(k), { positive: true }) : dflt;
  };
  const list = (k: string) => {
    const e = p?.get(k);
    return e ? r.stringList(e.value, field(k)) : [];
  };

  const robotId = str('robot_id');
  const platform = str('platform', 'fr3');
  if (platform !== undefined && platform !== 'fr3' && platform !== 'panda') r.fail(p?.get('platform')?.value, field('platform'), `expected fr3 or panda, got '${platform}'`);
  const task = str('task');
  const gatingEntry = p?.get('gating');
  const gating = gatingEntry ? r.boolean(gatingEntry.value, field('gating')) : false;
  const bystanders = list('bystanders') ?? [];
  const kind = str('tracking', 'none');
  let tracking: TrackingInput | undefined;
  const pairs = (k: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const item of list(k) ?? []) {
      const i = item.lastIndexOf(':');
      if (i <= 0 || i === item.length - 1) r.fail(p?.get(k)?.value, field(k), `expected 'source:body' entries, got '${item}'`);
      else out[item.slice(0, i)] = item.slice(i + 1);
    }
    return out;
  };
  switch (kind) {
    case 'none':
      break;
    case 'vrpn':
      tracking = { kind: 'vrpn', trackers: pairs('vrpn_trackers') };
      break;
    case 'mocap4r2':
      tracking = { kind: 'mocap4r2', topic: str('mocap4r2_topic', '/rigid_bodies') ?? '/rigid_bodies' };
      break;
    case 'apriltag':
      tracking = { kind: 'apriltag', tags: pairs('apriltag_tags') };
      break;
    default:
      r.fail(p?.get('tracking')?.value, field('tracking'), `expected none, vrpn, mocap4r2 or apriltag, got '${kind}'`);
  }
  if (tracking && bystanders.length === 0) r.fail(p?.get('tracking')?.value, field('bystanders'), 'tracking is configured but no bystanders are listed');
  const config = {
    nodeName,
    robotId: robotId ?? '',
    platform: (platform ?? 'fr3') as 'fr3' | 'panda',
    task: task ?? '',
    gating: gating ?? false,
    diagnosticsRate: num('diagnostics_rate', 10) ?? 10,
    idleStepRate: num('idle_step_rate', 100) ?? 100,
    robotStateTopic: str('robot_state_topic', '/franka_robot_state_broadcaster/robot_state') ?? '',
    gripperTopic: str('gripper_topic', '/franka_gripper/joint_states') ?? '',
    controllerTopic: str('controller_topic', '/fr3_arm_controller/joint_trajectory') ?? '',
    tableHeight: (() => {
      const e = p?.get('table_height');
      return e ? (r.number(e.value, field('table_height')) ?? 0) : 0;
    })(),
    bystanders,
    tracking,
  };
  return r.errors.length > 0 ? { ok: false, errors: r.errors } : { ok: true, config };
}
