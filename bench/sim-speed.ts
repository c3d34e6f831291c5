/**
 * MuJoCo testbed speed: raw physics steps/s, steps/s with the per-step raw-source sampling
 * (contacts + mj_contactForce + torques), and whole scripted episodes (plan + run + signals) per
 * scene. Run: npx tsx bench/sim-speed.ts
 */
import { loadMujoco } from '../drivers/sim/mujoco.js';
import { so101Scene } from '../drivers/sim/scenes/so101.js';
import { pandaScene } from '../drivers/sim/scenes/panda.js';
import { SimWorld } from '../drivers/sim/world.js';
import { DlsIk } from '../drivers/sim/ik.js';
import { POLICIES } from '../drivers/sim/policies.js';
import { runEpisode } from '../drivers/sim/episode.js';

const mj = await loadMujoco();
console.log(
  `node ${process.version}, load average ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);

for (const scene of [so101Scene(), pandaScene()]) {
  const world = new SimWorld(mj, scene);
  const ik = new DlsIk(mj, world);
  world.reset(1);
  const rawSteps = 6000;
  let t0 = performance.now();
  for (let i = 0; i < rawSteps; i++) mj.mj_step(world.model, world.data);
  const raw = rawSteps / ((performance.now() - t0) / 1000);

  world.reset(1);
  const ticks = 300;
  t0 = performance.now();
  for (let i = 0; i < ticks; i++) world.stepTick();
  const sampled = (ticks * scene.substeps) / ((performance.now() - t0) / 1000);

  let episodeSeconds = 0;
  let simSeconds = 0;
  let n = 0;
  for (const p of POLICIES) {
    t0 = performance.now();
    const r = runEpisode(world, ik, p, { seed: 100 + n });
    episodeSeconds += (performance.now() - t0) / 1000;
    simSeconds += r.ticks * r.dt;
    n++;
  }
  console.log(
    `${scene.id}: timestep ${((scene.controlDt / scene.substeps) * 1000).toFixed(3)} ms, ` +
      `raw mj_step ${raw.toFixed(0)} steps/s, with raw-source sampling ${sampled.toFixed(0)} steps/s ` +
      `(${((sampled * scene.controlDt) / scene.substeps).toFixed(1)}× real time); ` +
      `${n} scripted episodes (${simSeconds.toFixed(1)} s simulated) in ${episodeSeconds.toFixed(2)} s wall ` +
      `= ${(episodeSeconds / n).toFixed(2)} s/episode`,
  );
  ik.dispose();
  world.dispose();
}
