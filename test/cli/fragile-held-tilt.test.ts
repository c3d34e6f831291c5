/**
 * The fragile pilot's held-tilt reference from the tracked cup (issue 15), in real MuJoCo: on the
 * SO-101's seed 7 the closing fingers tip the cup ≈ 11° with the tool level (the approach leans
 * 0.5 rad outward while the fingers are turned to square the cup's faces). With the tool pose at
 * the grasp as the reference the gate counts the cup upright, lets the detour tilt the tool ≈ 6°
 * more, and the monitors hold for held_object_tilt_world (the cup at 15°); with the cup's tracked
 * axis at the grasp as the reference the filter keeps the cup itself under its limit and the
 * episode succeeds. A recorded call's cup axis is the sample the commit re-check handed the filter:
 * once the measured reference is committed none is read.
 */
import { describe, expect, it } from 'vitest';
import { loadMujoco, so101Scene } from '../../drivers/sim/index.js';
import { demoClauses, demoPlatform } from '../../src/cli/demo/clauses.js';
import { runFragileEpisode } from '../../src/cli/demo/fragile/episode.js';
import { defaultSpecPaths, loadScoringSpec } from '../../src/cli/spec-files.js';

describe('fragile pilot: the held cup measured at the grasp', () => {
  it('SO-101 seed 7, cbf: the tool-pose reference holds for the cup’s tilt; the tracked cup’s reference keeps it under τ and the cup reaches the box', async () => {
    const mj = await loadMujoco();
    const spec = loadScoringSpec(defaultSpecPaths());
    if (!spec.ok) throw new Error(spec.problems.join('; '));
    const clauses = demoClauses(spec.spec, demoPlatform('so101'), undefined, so101Scene().signals);
    if (!clauses.ok) throw new Error(clauses.reason);
    const input = { mj, arm: 'so101', mode: 'cbf', seed: 7, clauses: clauses.instances } as const;

    const tool = await runFragileEpisode({ ...input, heldTiltReference: 'tool' });
    expect(tool.held).toBe(true);
    expect(tool.violated).toContain('held_object_tilt_world');
    expect(tool.success).toBe(false);

    const measured = await runFragileEpisode({ ...input, recordFilterCalls: true });
    expect(measured.violated).toEqual([]);
    expect(measured.held, measured.holdReason).toBe(false);
    expect(measured.success, measured.reason).toBe(true);
    expect(measured.contact).toBe(false);
    // the tracker saw the cup tilted ≈ 11° in the fingers at the first held chunk's start
    const heldCalls = measured.filterCalls.filter(
      (c) => c.heldAxis !== null && c.nominal[5] === so101Scene().gripper.closed,
    );
    expect(heldCalls.length).toBeGreaterThan(0);
    const a = heldCalls[0]!.heldAxis!;
    const tiltDeg = (Math.acos(a[2]! / Math.hypot(a[0]!, a[1]!, a[2]!)) * 180) / Math.PI;
    expect(tiltDeg).toBeGreaterThan(9);
    expect(tiltDeg).toBeLessThan(13);
    // the record is the sample the re-check handed the filter (one reading, not a second read of
    // the tracker): it reads none once the first held chunk's measured reference is committed
    const first = measured.filterCalls.indexOf(heldCalls[0]!);
    const later = measured.filterCalls.slice(first + 1);
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((c) => c.heldAxis !== null)).toHaveLength(0);
  }, 180_000);
});
