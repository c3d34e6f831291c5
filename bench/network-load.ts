/**
 * Load generator for bench/network-faults.ts, run as a child process so its work is not the
 * control thread's: `flood64` logs in and declares a 64 MB PUBLISH, written in 1 MB pieces, and
 * again on a new connection each time the broker closes one, for `seconds`; `chunks` publishes
 * 2,000 chunk requests (H = 50, 6 joints) as fast as the client can; `policy30` publishes one such
 * request every 1/30 s for `seconds` (a VLA policy at its own rate, not a flood).
 *
 *   node --import tsx bench/network-load.ts flood64|chunks|policy30 <url> <robot> [seconds=6] [requests=2000]
 *   (`requests`: how many chunk requests `chunks` sends; bench/flood-worker-cpu.ts sends more)
 *   (prints "ready", starts on a line on stdin, prints its result line, exits on the next line on stdin)
 */
import { connect } from 'node:net';
import mqtt from 'mqtt';
import { topicFor } from '../src/telemetry/topics.js';
import { mqttString, remainingLength as varint } from '../test/support/mqtt-raw.js';

const [mode, url, robot, secondsArg] = process.argv.slice(2) as [string, string, string, string | undefined];
const seconds = Number(secondsArg ?? 6);
const floodRequests = Number(process.argv[6] ?? 2000);

/** A logged-in client that declares a 64 MB PUBLISH and writes it in 1 MB pieces; resolves when done or cut off. */
function flood64(port: number, ROBOT: string): Promise<{ mb: number; cut: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const body = [
      ...mqttString('MQTT'),
      4,
      0xc2,
      0,
      30,
      ...mqttString('bench-flood'),
      ...mqttString('op'),
      ...mqttString('op-secret1'),
    ];
    const total = 64 << 20;
    const topic = mqttString(topicFor(ROBOT, 'cmd/label'));
    let written = 0;
    let closed = false;
    socket.on('error', () => undefined);
    socket.once('close', () => {
      closed = true;
      resolve({ mb: written / 2 ** 20, cut: written < total });
    });
    socket.once('connect', () => {
      socket.write(Buffer.from([0x10, ...varint(body.length), ...body]));
      socket.once('data', () => {
        socket.write(Buffer.from([0x30, ...varint(topic.length + total), ...topic]));
        const piece = Buffer.alloc(1 << 20, 0x20);
        const pump = () => {
          while (!closed && written < total) {
            written += piece.length;
            if (!socket.write(piece)) return void socket.once('drain', pump);
          }
          if (!closed) {
            socket.end();
            resolve({ mb: written / 2 ** 20, cut: false });
          }
        };
        pump();
      });
    });
  });
}

/** Publish n chunk requests at once; resolves when every one is answered on chunk/result (or after 60 s). */
async function chunkFlood(n: number, ROBOT: string): Promise<string> {
  const client = await mqtt.connectAsync(url, {
    username: 'vla',
    password: 'vla-secret1',
    clientId: `bench-vla-${Math.random()}`,
  });
  // The answers are counted here, not on the measured control thread.
  let answered = 0;
  let superseded = 0;
  let rateLimited = 0;
  let allAnswered: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  client.on('message', (_topic, payload) => {
    answered++;
    if (payload.includes('"code":"superseded"')) superseded++;
    if (payload.includes('"code":"rate-limit"')) rateLimited++;
    if (answered >= n) allAnswered();
  });
  await client.subscribeAsync(topicFor(ROBOT, 'chunk/result'), { qos: 1 });
  const targets = Array.from({ length: 50 }, (_, k) => [0.01 * k, 0.1, 0.2, 0.3, 0.4, 0.5].map((x) => x + 1e-7 * k));
  const t0 = performance.now();
  const acks: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    acks.push(
      client.publishAsync(
        topicFor(ROBOT, 'chunk/request'),
        JSON.stringify({
          v: 1,
          id: `c${process.pid}-${i}`, // unique across flood processes (the screen remembers ids)
          // on the epoch: a second flood process (the SCHED_IDLE window) must not look like the
          // same policy's clock going back (out-of-order)
          stamp: (performance.timeOrigin + performance.now()) / 1000,
          horizon: 50,
          joints: 6,
          dt: 0.02,
          targets,
        }),
        { qos: 1 },
      ),
    );
  }
  await Promise.all(acks);
  const sent = (performance.now() - t0) / 1000;
  console.log('acked'); // every request through the broker's admission (the bench's e-stop window ends here)
  await Promise.race([done, new Promise((r) => setTimeout(r, 60_000))]);
  const all = (performance.now() - t0) / 1000;
  await client.endAsync(true);
  return `${n} sent and acknowledged in ${sent.toFixed(1)} s; ${answered} answered ${all.toFixed(1)} s after the first was sent (${superseded} superseded, ${rateLimited} rate-limit)`;
}

/** A policy at 30 Hz for `seconds`: one chunk request every 1/30 s (not a flood: what a VLA sends). */
async function policy30(ROBOT: string): Promise<string> {
  const client = await mqtt.connectAsync(url, {
    username: 'vla',
    password: 'vla-secret1',
    clientId: `bench-vla30-${Math.random()}`,
  });
  const codes = new Map<string, number>();
  let answered = 0;
  client.on('message', (_topic, payload) => {
    answered++;
    const code = /"code":"([^"]*)"/.exec(payload.toString())?.[1] ?? '?';
    codes.set(code, (codes.get(code) ?? 0) + 1);
  });
  await client.subscribeAsync(topicFor(ROBOT, 'chunk/result'), { qos: 1 });
  const targets = Array.from({ length: 50 }, (_, k) => [0.01 * k, 0.1, 0.2, 0.3, 0.4, 0.5].map((x) => x + 1e-7 * k));
  const t0 = performance.now();
  let i = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const next = t0 + (i * 1000) / 30;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
    client.publish(
      topicFor(ROBOT, 'chunk/request'),
      // stamped on the epoch, as the floods are: later than theirs (a new policy process must not look
      // like the same policy's clock going back: out-of-order)
      JSON.stringify({
        v: 1,
        id: `p${i}`,
        stamp: (performance.timeOrigin + performance.now()) / 1000,
        horizon: 50,
        joints: 6,
        dt: 0.02,
        targets,
      }),
      { qos: 1 },
    );
    i++;
  }
  await new Promise((r) => setTimeout(r, 2000)); // the last answers
  await client.endAsync(true);
  const byCode = [...codes].map(([k, v]) => `${k} ${v}`).join(', ');
  return `${i} sent at 30 Hz in ${seconds} s; ${answered} answered (${byCode})`;
}

// Started (and compiled) before the measurement: wait for the bench's "go" on stdin.
console.log('ready');
await new Promise((r) => process.stdin.once('data', r));
// This process's own CPU from "go" on (all its threads), printed with its result: the sender's share of the cores.
const cpuAtGo = process.cpuUsage();
const senderCpu = () => {
  const u = process.cpuUsage(cpuAtGo);
  return `; sender process CPU ${((u.user + u.system) / 1000).toFixed(0)} ms`;
};
if (mode === 'flood64') {
  // One 64 MB PUBLISH after another (a new connection when the broker closes one) for `seconds`.
  const t0 = performance.now();
  const floods: { mb: number; cut: boolean }[] = [];
  while (performance.now() - t0 < seconds * 1000) floods.push(await flood64(Number(new URL(url).port), robot));
  const cut = floods.filter((f) => f.cut);
  const mb = floods.reduce((a, f) => a + f.mb, 0);
  console.log(
    `${floods.length} floods in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${mb.toFixed(0)} MB sent; ` +
      (cut.length === floods.length
        ? `each cut off by the broker (after ${Math.min(...cut.map((f) => f.mb))}–${Math.max(...cut.map((f) => f.mb))} MB)`
        : `${floods.length - cut.length} accepted in full`) +
      senderCpu(),
  );
} else if (mode === 'policy30') console.log((await policy30(robot)) + senderCpu());
else console.log((await chunkFlood(floodRequests, robot)) + senderCpu());
// Exit when the bench says so, after its measured window (a process's exit is not part of the load).
process.stdin.once('data', () => process.exit(0));
