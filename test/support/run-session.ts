/** Starting an `armguard run` session on the emulated SO-101 for fault tests, and reading back its episode. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSo101Calibration, type So101Calibration } from '../../src/calibration/so101.js';
import { parseAccessFile } from '../../src/cli/compose/access-file.js';
import { RunSession, type RunSessionOptions } from '../../src/cli/compose/session.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { parseRunArgs } from '../../src/cli/commands/run.js';
import { readEpisode, type EpisodeRecord, type GateRecord, type SemanticRecord } from '../../src/episode/index.js';
import { systemClock, systemTimers } from '../../src/platform/system-clock.js';
import { ChunkClient } from '../../src/runtime/chunk-client.js';
import { MqttChunkClientTransport } from '../../src/telemetry/mqtt-chunk-transport.js';
import { repoRoot } from './paths.js';
import type { ExecutedChunk, GateChunk } from '../../src/gate/chunk.js';

/** The demo calibration the emulated SO-101 runs with. */
export const CAL = join(repoRoot, 'calibration/so101-demo.yaml');

export const SESSION_ACCESS_YAML = `users:
  - { username: armguard, password: "armguard-secret", roles: [armguard] }
  - { username: alice, password: "alice-secret", roles: [operator] }
  - { username: viewer, password: "viewer-secret", roles: [viewer] }
  - { username: policy, password: "policy-secret", roles: [policy] }
  - { username: vla, password: "vla-secret", roles: [policy] }
`;

/**
 * An `armguard run` session on the emulated SO-101 (demo calibration, the shipped spec, the embedded
 * broker with SESSION_ACCESS_YAML's users, robot arm9, task so101-pick-butter, max-age floor 0.5 s):
 * what the session, fault, timing and semantic tests start; `extra` overrides any option —
 * `minMaxAge: undefined` derives the floor from the read cycle measured at start-up, as `run` does
 * without --max-age. `stampLog` starts each log line with the time it was logged
 * (`performance.now()` in whole ms, then a space).
 */
export async function startEmulatedSession(
  extra: Partial<RunSessionOptions> = {},
  { stampLog = false }: { stampLog?: boolean } = {},
): Promise<{ s: RunSession; log: string[]; calibration: So101Calibration }> {
  const cal = parseSo101Calibration(readFileSync(CAL, 'utf8'), CAL);
  const access = parseAccessFile(SESSION_ACCESS_YAML, 'access.yaml');
  const spec = loadScoringSpec(defaultSpecPaths());
  if (!cal.ok || !access.ok || !spec.ok) throw new Error('fixture files do not parse');
  const log: string[] = [];
  const s = await RunSession.start({
    calibration: cal.value,
    spec: spec.spec,
    specVersions: spec.versions,
    task: 'so101-pick-butter',
    robotId: 'arm9',
    episodesDir: mkdtempSync(join(tmpdir(), 'armguard-fault-session-')),
    rate: 100,
    gating: true,
    arm: { kind: 'emulator' },
    broker: { kind: 'embedded', port: 0, access: access.value },
    minMaxAge: 0.5,
    clock: systemClock,
    timers: systemTimers,
    log: stampLog ? (l) => log.push(`${performance.now().toFixed(0)} ${l}`) : (l) => log.push(l),
    ...extra,
  });
  return { s, log, calibration: cal.value };
}

/** Resolve once `pred()` holds (checked every 10 ms), fail after `seconds`. */
export function waitUntil(pred: () => boolean, seconds: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = systemClock.now() + seconds;
    const check = () => {
      if (pred()) return resolve();
      if (systemClock.now() > deadline) return reject(new Error(`timed out after ${seconds} s waiting for ${what}`));
      setTimeout(check, 10);
    };
    check();
  });
}

export async function episodeGateRecords(path: string): Promise<GateRecord[]> {
  const out: EpisodeRecord[] = [];
  await readEpisode(path, (r) => out.push(r), { kinds: ['gate'] });
  return out.flatMap((r) => (r.kind === 'gate' ? [r.value] : []));
}

export async function episodeSemanticRecords(path: string): Promise<SemanticRecord[]> {
  const out: SemanticRecord[] = [];
  await readEpisode(path, (r) => r.kind === 'semantic' && out.push(r.value), { kinds: ['semantic'] });
  return out;
}

/**
 * startEmulatedSession for `task` on robot arm7 with the semantic options `runArgs` give
 * `armguard run so101 --emulator` (parsed as the CLI parses them), and a policy's chunk client
 * (user vla over the session's broker). Each teardown goes to `cleanup` as soon as its part runs.
 */
export async function startPolicySession(
  task: string,
  runArgs: readonly string[],
  cleanup: (c: () => Promise<void>) => void,
  extra: Partial<RunSessionOptions> = {},
): Promise<{ s: RunSession; client: ChunkClient; log: string[] }> {
  const parsed = await parseRunArgs([
    'so101',
    '--emulator',
    '--calibration',
    CAL,
    '--task',
    task,
    '--mqtt',
    'mqtt://127.0.0.1:1',
    ...runArgs,
  ]);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const { s, log } = await startEmulatedSession({
    task,
    robotId: 'arm7',
    ...(parsed.options.semantic ? { semantic: parsed.options.semantic } : {}),
    ...extra,
  });
  cleanup(() => s.stop('test cleanup'));
  const transport = await MqttChunkClientTransport.connect({
    url: s.brokerUrl!,
    robot: 'arm7',
    username: 'vla',
    password: 'vla-secret',
  });
  cleanup(() => transport.close());
  return { s, client: new ChunkClient(transport, systemTimers, 3), log };
}

/**
 * A chunk through a live session's chunk path, as MQTT requests go (`run` filters in a worker
 * thread: the decision arrives later, after the control thread's re-check).
 */
export function submitChunk(s: RunSession, chunk: GateChunk, now: number): Promise<ExecutedChunk> {
  return new Promise((resolve) => s.pipeline.submitChunkAsync(chunk, now, (r) => resolve(r)));
}

/**
 * What an episode's gate records say of a chunk filter worker fault: a hold naming the worker, and
 * the worker's restart event ("started again").
 */
export function filterWorkerFaultRecorded(records: readonly GateRecord[]): { hold: boolean; restart: boolean } {
  return {
    hold: records.some((r) => r.kind === 'transition' && r.to === 'hold' && /chunk filter worker/.test(r.reason)),
    restart: records.some(
      (r) => r.kind === 'event' && r.event === 'chunk-filter-worker' && /started again/.test(r.detail ?? ''),
    ),
  };
}
