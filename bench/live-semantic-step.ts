/**
 * Bytes allocated per control step by LiveSemantic.step (issue 17), garbage included, by V8's
 * sampling heap profiler (sampled-allocation.ts): a running task with a judge whose verdict has
 * landed (allow, refuse, fault fail-closed, fail-open), stage events fed from a reader that reuses
 * its reading (as the SO-101 reader does), and the steps between tasks (no task, judge configured).
 * The arm moves through the attempt and commit stages on a loop, so both the observing and the
 * post-commit paths are sampled.
 *
 *   npx tsx bench/live-semantic-step.ts [steps]
 */
import { loadavg } from 'node:os';
import type { LiveStageReading, LiveTask } from '../src/runtime/live-semantic.js';
import { LiveSemantic } from '../src/runtime/live-semantic.js';
import { DEFAULT_SEMANTIC_GATE_CONFIG, type JudgeOutcome } from '../src/semantic/index.js';
import { sampledAllocation } from './sampled-allocation.js';

const steps = Number(process.argv[2] ?? 20_000);

const task: LiveTask = {
  task: 'bench-task',
  instruction: 'Put the cup on the plate.',
  intent: 'pick-place',
  region: { epsXy: 0.05, epsZ: 0.05 },
  epsAttempt: 0.1,
};

async function perStep(
  label: string,
  outcome: JudgeOutcome | undefined,
  failMode: 'closed' | 'open',
  withTask: boolean,
) {
  let now = 0;
  const ee: [number, number, number] = [0.5, 0, 0.05];
  const reading: { ee: [number, number, number]; gripperAperture: number; grasped: boolean } = {
    ee,
    gripperAperture: NaN,
    grasped: false,
  };
  let k = 0;
  const read = (): LiveStageReading => {
    // a loop from the actor's start to the target and back, grasping on the way
    const phase = (k++ % 200) / 200;
    ee[0] = 0.5 - 0.1 * Math.sin(Math.PI * phase);
    ee[1] = 0.3 * Math.sin(Math.PI * phase);
    reading.grasped = phase > 0.1 && phase < 0.9;
    return reading;
  };
  const live = new LiveSemantic({
    ...(outcome
      ? {
          judge: {
            judge: { name: 'bench', judge: () => Promise.resolve(outcome) },
            gateConfig: { ...DEFAULT_SEMANTIC_GATE_CONFIG, failMode },
          },
        }
      : {}),
    stages: { read, actorStart: [0.5, 0, 0.05], targetPoint: [0.4, 0.3, 0.05] },
    gating: true,
    now: () => now,
    record: () => undefined,
    log: () => undefined,
    arm: { hold: () => undefined },
  });
  if (withTask) {
    live.startTask(0, task);
    await live.pending;
    live.beforeChunk(0);
    live.chunkForwarded();
  }
  const a = await sampledAllocation(() => {
    now += 0.002;
    live.step(now);
    return 1;
  }, steps);
  console.log(JSON.stringify({ case: label, bytes_per_step: a }));
}

const verdict = (decision: 'allow' | 'refuse'): JudgeOutcome => ({
  ok: true,
  verdict: { decision, reason: 'bench', latency: 0.01, judge: 'bench' },
});
const fault: JudgeOutcome = {
  ok: false,
  fault: { kind: 'judge', source: 'bench', cause: 'http-status', detail: 'HTTP 500', latency: 0.1 },
};
console.log(JSON.stringify({ steps, loadavg_start: loadavg().map((v) => +v.toFixed(2)) }));
await perStep('task, verdict allow', verdict('allow'), 'closed', true);
await perStep('task, verdict refuse', verdict('refuse'), 'closed', true);
await perStep('task, judge fault, fail-closed', fault, 'closed', true);
await perStep('task, judge fault, fail-open', fault, 'open', true);
await perStep('task, no judge (stage events only)', undefined, 'closed', true);
await perStep('no task, judge configured (fail-closed)', verdict('allow'), 'closed', false);
console.log(JSON.stringify({ loadavg_end: loadavg().map((v) => +v.toFixed(2)) }));
