/**
 * The session of one recorded demo episode: the simulated arm's rig (src/rigs/sim.ts) handed to
 * the one Session every platform runs (src/runtime/session.ts), recording into
 * `<dir>/<episodeId>.mcap` through an EpisodeManager as `armguard run` does, with the demo's own
 * episode id and start time. Started at t = 0; the caller steps it, labels and closes it.
 */
import { EpisodeManager } from '../../episode/index.js';
import type { PlatformRig } from '../../runtime/rig.js';
import { Session, type SessionOptions } from '../../runtime/session.js';
import { ManualClock, ManualTimers } from '../../util/clock.js';

export interface DemoSessionOptions {
  readonly rig: PlatformRig;
  /** false: a baseline run (the demo's `off`): chunks forwarded after the screen, would-holds recorded. */
  readonly gating: boolean;
  readonly dir: string;
  readonly episodeId: string;
  /** ISO time written as the episode's start. */
  readonly startedAt: string;
  readonly robotId: string;
  readonly task: string;
  readonly policy: string;
  /** Recorded in the episode's start record (absent: not recorded). */
  readonly gateMode?: 'on' | 'off';
  readonly clauses: readonly string[];
  /** The semantic gate (the hazard twins), built with the session's recording of its records. */
  readonly semantic?: SessionOptions['semantic'];
}

export interface DemoSession {
  readonly session: Session;
  /** The episode file. */
  readonly path: string;
}

export async function startDemoSession(o: DemoSessionOptions): Promise<DemoSession> {
  let manager: EpisodeManager | undefined;
  const session = new Session({
    rig: o.rig,
    gating: o.gating,
    task: o.task,
    log: () => undefined,
    // The episode loop holds the simulated arm whenever a chunk is not forwarded.
    recordHeldChunks: true,
    ...(o.semantic ? { semantic: o.semantic } : {}),
    episodes: (hooks) =>
      (manager = new EpisodeManager({
        dir: o.dir,
        robotId: o.robotId,
        platform: o.rig.platform,
        task: o.task,
        policy: o.policy,
        ...(o.gateMode ? { gateMode: o.gateMode } : {}),
        clauses: [...o.clauses],
        // Simulated time: the recorder's periodic flush never fires; the file is flushed when it ends.
        timers: new ManualTimers(new ManualClock(0)),
        wallClock: () => new Date(o.startedAt),
        episodeId: () => o.episodeId,
        onFault: hooks.onFault,
        onWritten: hooks.onWritten,
      })),
  });
  await session.start(0);
  const path = manager?.path;
  if (path === undefined) throw new Error(`episode ${o.episodeId}: the episode file was not opened`);
  return { session, path };
}
