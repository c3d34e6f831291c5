/**
 * Loads the MuJoCo WebAssembly module once per process. The module is large (≈0.3 s to
 * instantiate), so every world in the process shares it.
 */
import loadMujocoModule from '@mujoco/mujoco';

export type Mujoco = Awaited<ReturnType<typeof loadMujocoModule>>;
export type MjModel = InstanceType<Mujoco['MjModel']>;
export type MjData = InstanceType<Mujoco['MjData']>;

let loading: Promise<Mujoco> | undefined;

export function loadMujoco(): Promise<Mujoco> {
  loading ??= loadMujocoModule();
  return loading;
}
