import type { FrankaNodeConfig } from '../../../src/nodes/franka-node-config.js';

/** A complete Franka node configuration for tests (the defaults of launch/params/fr3.yaml, no tracking, no recording). */
export function frankaTestConfig(overrides: Partial<FrankaNodeConfig> = {}): FrankaNodeConfig {
  return {
    nodeName: 'armguard',
    robotId: 'fr3-test',
    platform: 'fr3',
    endEffector: 'franka_hand',
    task: 'libero-spatial-pick-bowl',
    gateMode: 'gate',
    diagnosticsRate: 10,
    idleStepRate: 100,
    startupTimeout: 10,
    robotStateTopic: 'franka_robot_state_broadcaster/robot_state',
    gripperTopic: 'franka_gripper/joint_states',
    controllerTopic: 'fr3_arm_controller/joint_trajectory',
    tableHeight: 0,
    bystanders: [],
    tracking: undefined,
    obstacles: [],
    trackingInBase: [0, 0, 0, 0, 0, 0],
    obstacleMaxAge: 0.1,
    workspace: undefined,
    dSafe: 0.03,
    warningBand: false,
    warningBandRunOn: undefined,
    episodesDir: undefined,
    ...overrides,
  };
}
