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

export const SESSION_ACCESS_YAML = `users:
  - { username: armguard, password: "armguard-secret", roles: [armguard] }
  - { username: alice, password: "alice-secret", roles: [operator] }
  - { username: viewer, password: "viewer-secret", roles: [viewer] }
  - { username: policy, password: "policy-secret", roles: [policy] }
  - { username: vla, password: "vla-secret", roles: [policy] }
`;

/**
 * An `armguard run` session on the emulated SO-101 (demo calibration, the shipped spec, the embedded
 * broker with SESSION_ACCESS_YAML's users, robot arm9, task so101-pick-butter): what the session,
 * fault and semantic tests start; `extra` overrides any option.
 */
export async function startEmulatedSession(
  extra: Partial<RunSessionOptions> = {},
): Promise<{ s: RunSession; log: string[]; calibration: So101Calibration }> {
  const calPath = join(repoRoot, 'calibration/so101-demo.yaml');
  const cal = parseSo101Calibration(readFileSync(calPath, 'utf8'), calPath);
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
    log: (l) => log.push(l),
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
