/** Builds a small but complete episode with every record kind, for recorder/reader tests. */
import { ManualClock, ManualTimers } from '../../../src/util/index.js';
import { SIGNALS, SignalFrame, signalIndex } from '../../../src/schema/signals.js';
import { EpisodeRecorder, type FileWritable, type RecorderOptions } from '../../../src/episode/index.js';
import type { JointChunk } from '../../../src/ports/index.js';

export const T0 = 1_764_400_000;
export const CLAUSES = ['contact_force', 'joint_torque', 'bystander_disp'];

export function newRecorder(out: FileWritable, options: Partial<RecorderOptions> = {}) {
  const clock = new ManualClock(0);
  const timers = new ManualTimers(clock);
  const recorder = EpisodeRecorder.start(
    out,
    {
      episodeId: 'ep-001',
      robotId: 'fr3-lab-a',
      platform: 'franka-fr3',
      task: 'pick-cube',
      policy: 'pi0-v3',
      startedAt: '2026-11-29T15:00:00.000Z',
      t0: T0,
      clauses: CLAUSES,
      versions: { spec: 'sha256:aaaa', calibration: 'sha256:bbbb', clauseLibrary: 'sha256:cccc' },
    },
    { timers, file: 'ep-001.mcap', ...options },
  );
  return { recorder, timers, clock };
}

/** Frame k: contact force k/10 N, torque 20+k, one NaN every 7th step (invalid). */
export function frameAt(k: number): SignalFrame {
  const f = new SignalFrame();
  f.t = T0 + k * 0.01;
  f.set(signalIndex('contact_force_max')!, k / 10, f.t - 0.002, 'franka.o_f_ext');
  f.set(
    signalIndex('max_joint_torque')!,
    k % 7 === 3 ? NaN : 20 + k,
    f.t - 0.001,
    k < 50 ? 'franka.tau_J' : 'franka.tau_J_filtered',
  );
  f.set(signalIndex('gripper_contact')!, k > 20 ? 1 : 0, f.t, 'franka.gripper');
  return f;
}

export const rhoAt = (k: number): number[] => [30 - k / 10, 87 - (20 + k), k === 40 ? NaN : 0.05 - k * 0.001];

export function chunkAt(k: number): JointChunk {
  return {
    id: `c${k}`,
    stamp: T0 + k * 0.01,
    horizon: 2,
    joints: 7,
    dt: 0.02,
    targets: Float64Array.from({ length: 14 }, (_, i) => 0.01 * i + k),
  };
}

/** Record `n` steps of everything on `recorder`. */
export function recordSteps(recorder: EpisodeRecorder, from: number, n: number): void {
  for (let k = from; k < from + n; k++) {
    recorder.frame(frameAt(k));
    recorder.robustness(T0 + k * 0.01, rhoAt(k));
    if (k % 10 === 0) {
      recorder.proposedChunk(T0 + k * 0.01, chunkAt(k));
      recorder.executedChunk(
        T0 + k * 0.01 + 0.001,
        chunkAt(k),
        `c${k}`,
        k % 20 === 0 ? 'filtered' : 'executed',
        k % 20 === 0 ? 0.125 : 0,
      );
    }
    if (k === 25) recorder.gateTransition(T0 + k * 0.01, 'armed', 'warning', 'contact_force margin < 5 N');
    if (k === 30)
      recorder.fault(T0 + k * 0.01, { kind: 'stale-signal', source: 'mocap', signal: 'non_target_disp_max', age: 0.3 });
    if (k % 5 === 0) recorder.raw(T0 + k * 0.01, 'so101.bus', { id: 1, position: 2048 + k, load: -3 });
  }
}

export const SIGNAL_COUNT = SIGNALS.length;
