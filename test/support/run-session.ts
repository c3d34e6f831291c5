/** Starting an `armguard run` session on the emulated SO-101 for fault tests, and reading back its episode. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSo101Calibration, type So101Calibration } from '../../src/calibration/so101.js';
import { parseAccessFile } from '../../src/cli/compose/access-file.js';
import { RunSession, type RunSessionOptions } from '../../src/cli/compose/session.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';
import { readEpisode, type EpisodeRecord, type GateRecord } from '../../src/episode/index.js';
import { systemClock, systemTimers } from '../../src/platform/system-clock.js';
import { repoRoot } from './paths.js';

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
