/**
 * Child process for the crash test: records frames (and a JointState every 10th step) to the file
 * given as argv[2] with real timers, flushing every 50 frames and printing `flushed <frames>` after
 * each flush completes, until it is killed.
 */
import { EpisodeRecorder, NodeFileWritable } from '../../../src/episode/index.js';
import { systemTimers } from '../../../src/platform/system-clock.js';
import { CLAUSES, T0, frameAt } from './episode-fixture.js';
import { jointState } from '../../mcap/support/franka-fixtures.js';

const path = process.argv[2]!;
const recorder = EpisodeRecorder.start(
  await NodeFileWritable.create(path),
  {
    episodeId: 'crash-1',
    robotId: 'fr3-lab-a',
    startedAt: new Date().toISOString(),
    t0: T0,
    clauses: CLAUSES,
  },
  { timers: systemTimers, flushInterval: 0.1, file: 'crash.mcap' },
);
recorder.onFault((f) => process.stderr.write(`fault ${JSON.stringify(f)}\n`));
await recorder.addRosTopic({ topic: '/joint_states', type: 'sensor_msgs/msg/JointState' });

let k = 0;
for (;;) {
  for (let i = 0; i < 50; i++, k++) {
    recorder.frame(frameAt(k));
    if (k % 10 === 0)
      recorder.rosMessage(
        '/joint_states',
        T0 + k * 0.01,
        jointState(BigInt(T0) * 1_000_000_000n + BigInt(k) * 10_000_000n, k),
      );
  }
  if (await recorder.flush()) process.stdout.write(`flushed ${k}\n`);
  await new Promise((resolve) => setImmediate(resolve));
}
