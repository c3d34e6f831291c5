/**
 * Added latency of MQTT telemetry on the gate path (issue 8): a 1 kHz monitor step (gate.evaluate on
 * 8 clause margins) with and without publishing margins decimated to 50 Hz to the embedded broker.
 * The step is timed with performance.now(); the event loop runs between 10 ms batches so the MQTT
 * client really writes to its socket, as it would between 1 kHz samples.
 *
 *   npx tsx bench/telemetry-latency.ts [seconds=60]
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { ArrayClauseMargins, Gate } from '../src/gate/index.js';
import { EmbeddedBroker } from '../src/telemetry/embedded-broker.js';
import { MqttLink } from '../src/telemetry/mqtt-link.js';

const seconds = Number(process.argv[2] ?? 60);
const names = [
  'arm_furniture_force',
  'target_furniture_force',
  'max_contact_force',
  'non_target_max_disp',
  'held_object_tilt_world',
  'stable_grasp_maintained',
  'joint_torque',
  'self_collision_free',
];

function quantile(xs: Float64Array, q: number): number {
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

async function run(link: MqttLink | undefined): Promise<Float64Array> {
  const gate = new Gate();
  const margins = new ArrayClauseMargins(names, 0.1);
  const steps = seconds * 1000;
  const lat = new Float64Array(steps);
  const values: Record<string, number> = {};
  const band: Record<string, number> = {};
  for (const n of names) band[n] = 0.1;
  for (let k = 0; k < steps; k++) {
    const t = k / 1000;
    const t0 = performance.now();
    for (let i = 0; i < names.length; i++) margins.setFinal(i, 0.5 + 0.3 * Math.sin(t + i));
    gate.evaluate(t, margins, null);
    // Decimated here, as the session does before it hands margins over (the link publishes each call).
    if (link && k % 20 === 0) {
      for (let i = 0; i < names.length; i++) values[names[i]!] = margins.margin(i);
      link.publishMargins(t, values, band);
    }
    lat[k] = performance.now() - t0;
    if (k % 10 === 9) await yieldToLoop();
  }
  return lat;
}

const broker = new EmbeddedBroker({ users: [{ username: 'ag', password: 'ag', roles: ['armguard'] }] });
const url = await broker.start();
const link = new MqttLink(
  { url, robot: 'bench', username: 'ag', password: 'ag' },
  {
    estop: () => undefined,
    release: () => ({ ok: true }),
    label: () => ({ ok: true }),
  },
);
await link.start();
await run(undefined); // warm-up
const base = await run(undefined);
const withTelemetry = await run(link);
const p = (xs: Float64Array, q: number) => (quantile(xs, q) * 1000).toFixed(2);
console.log(
  JSON.stringify({
    steps: base.length,
    baseline_us: { p50: p(base, 0.5), p99: p(base, 0.99) },
    with_telemetry_us: { p50: p(withTelemetry, 0.5), p99: p(withTelemetry, 0.99) },
    added_p99_us: ((quantile(withTelemetry, 0.99) - quantile(base, 0.99)) * 1000).toFixed(2),
    published: link.counters.published,
    dropped: link.counters.dropped,
  }),
);
await link.stop();
await broker.stop();
