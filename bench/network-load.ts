/**
 * Load generator for bench/network-faults.ts, run as a child process so its work is not the
 * control thread's: `flood64` logs in and declares a 64 MB PUBLISH, written in 1 MB pieces;
 * `chunks` publishes 2,000 chunk requests (H = 50, 6 joints) as fast as the client can.
 *
 *   node --import tsx bench/network-load.ts flood64|chunks <url> <robot>   (prints "ready", starts on a line on stdin)
 */
import { connect } from 'node:net';
import mqtt from 'mqtt';
import { topicFor } from '../src/telemetry/topics.js';
import { mqttString, remainingLength as varint } from '../test/support/mqtt-raw.js';

const [mode, url, robot] = process.argv.slice(2) as [string, string, string];

/** A logged-in client that declares a 64 MB PUBLISH and writes it in 1 MB pieces; resolves when done or cut off. */
function flood64(port: number, ROBOT: string): Promise<string> {
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
      resolve(`cut off after ${(written / 2 ** 20).toFixed(0)} MB`);
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
            resolve(`all ${(written / 2 ** 20).toFixed(0)} MB sent`);
          }
        };
        pump();
      });
    });
  });
}

async function chunkFlood(n: number, ROBOT: string): Promise<string> {
  const client = await mqtt.connectAsync(url, {
    username: 'vla',
    password: 'vla-secret1',
    clientId: `bench-vla-${Math.random()}`,
  });
  const targets = Array.from({ length: 50 }, (_, k) => [0.01 * k, 0.1, 0.2, 0.3, 0.4, 0.5].map((x) => x + 1e-7 * k));
  const t0 = performance.now();
  const acks: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    acks.push(
      client.publishAsync(
        topicFor(ROBOT, 'chunk/request'),
        JSON.stringify({
          v: 1,
          id: `c${i}`,
          stamp: performance.now() / 1000,
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
  await client.endAsync(true);
  return `${n} sent and acknowledged in ${sent.toFixed(1)} s`;
}

// Started (and compiled) before the measurement: wait for the bench's "go" on stdin.
console.log('ready');
await new Promise((r) => process.stdin.once('data', r));
if (mode === 'flood64') console.log(await flood64(Number(new URL(url).port), robot));
else console.log(await chunkFlood(2000, robot));
process.exit(0);
