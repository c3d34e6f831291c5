/**
 * One simulated episode: reset from a seed, plan the scripted policy, then per 30 Hz tick — ask
 * for a chunk when the last one is used up, pass it through an optional gate hook, play it on
 * the sink, step physics, poll the signal source and record the frame.
 */
import type { JointChunk } from '../../src/ports/index.js';
import { SIGNAL_COUNT, SignalFrame } from '../../src/schema/signals.js';
import type { DlsIk } from './ik.js';
import { CHUNK_HORIZON, ScriptedPolicy, planContext, type PolicyDefinition } from './policies.js';
import { SimCommandSink, SimJointState, SimSignalSource } from './ports.js';
import { SimSignals, type TrackingModel } from './signals.js';
import { targetInBox, type TaskOutcome } from './task.js';
import type { SimWorld } from './world.js';

/** Gate hook: return the chunk to execute (possibly filtered) or null to hold. */
export type ChunkGate = (chunk: JointChunk, frame: SignalFrame, now: number) => JointChunk | null;
/** Per-tick monitor hook: 'hold' stops the arm at once (mid-chunk), until the gate passes a chunk again. */
export type TickMonitor = (frame: SignalFrame, now: number) => 'continue' | 'hold';

export interface EpisodeOptions {
  readonly seed: number;
  readonly gate?: ChunkGate;
  readonly monitor?: TickMonitor;
  /** Simulated external tracking of the bystanders (noise, latency); exact poses when absent. */
  readonly tracking?: TrackingModel;
  /** Stop early after this many ticks (short test runs). */
  readonly maxTicks?: number;
  /** Called after every tick with the frame of that tick (reused; copy what you keep). */
  readonly onFrame?: (frame: SignalFrame, tick: number) => void;
}

export interface EpisodeResult {
  readonly policy: string;
  readonly seed: number;
  readonly ticks: number;
  readonly dt: number;
  /** Per-signal series, indexed like SIGNALS: series[i][tick]. */
  readonly series: readonly Float64Array[];
  /** Per-signal validity at the last tick (1 = declared and valid). */
  readonly declared: Uint8Array;
  readonly outcome: TaskOutcome;
  readonly holds: number;
}

/** The sim's ports for one world, for callers that wire their own loop (e.g. the gate runtime). */
export interface SimPorts {
  readonly signals: SimSignals;
  readonly source: SimSignalSource;
  readonly sink: SimCommandSink;
  readonly joints: SimJointState;
}

export function simPorts(world: SimWorld, tracking?: TrackingModel): SimPorts {
  const signals = new SimSignals(world, tracking);
  return {
    signals,
    source: new SimSignalSource(signals),
    sink: new SimCommandSink(world),
    joints: new SimJointState(world),
  };
}

export function runEpisode(
  world: SimWorld,
  ik: DlsIk,
  definition: PolicyDefinition,
  options: EpisodeOptions,
): EpisodeResult {
  world.reset(options.seed);
  const ports = simPorts(world, options.tracking);
  ports.signals.begin();
  const policy = new ScriptedPolicy(definition, world.scene, ik, planContext(world));
  const ticks = Math.min(policy.ticks, options.maxTicks ?? Infinity);
  const dt = world.scene.controlDt;
  const series = Array.from({ length: SIGNAL_COUNT }, () => new Float64Array(ticks));
  const frame = new SignalFrame();
  ports.source.poll(frame, 0);
  let holds = 0;
  for (let tick = 0; tick < ticks; tick++) {
    const now = tick * dt;
    if (tick % CHUNK_HORIZON === 0) {
      const proposed = policy.nextChunk(now);
      const chunk = options.gate ? options.gate(proposed, frame, now) : proposed;
      if (chunk) ports.sink.execute(chunk, now);
      else {
        ports.sink.hold(now, 'gate');
        holds++;
      }
    }
    ports.sink.tick(now);
    world.stepTick();
    ports.source.poll(frame, now + dt);
    if (options.monitor && !ports.sink.isHolding && options.monitor(frame, now + dt) === 'hold') {
      ports.sink.hold(now + dt, 'monitor');
      holds++;
    }
    for (let i = 0; i < SIGNAL_COUNT; i++) (series[i] as Float64Array)[tick] = frame.values[i] ?? NaN;
    options.onFrame?.(frame, tick);
  }
  const declared = Uint8Array.from(frame.validity, (v) => (v === 1 ? 1 : 0));
  return {
    policy: definition.name,
    seed: options.seed,
    ticks,
    dt,
    series,
    declared,
    outcome: targetInBox(world),
    holds,
  };
}
