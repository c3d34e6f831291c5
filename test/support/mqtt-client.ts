/** A test-side MQTT client that records messages per topic and can wait for one. */
import mqtt, { type MqttClient } from 'mqtt';

export class RecordingClient {
  readonly messages: { topic: string; payload: string; retain: boolean }[] = [];
  private waiters: { pred: (t: string, p: string) => boolean; resolve: () => void }[] = [];
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const p = payload.toString();
      this.messages.push({ topic, payload: p, retain: packet.retain });
      this.waiters = this.waiters.filter((w) => (w.pred(topic, p) ? (w.resolve(), false) : true));
    });
  }

  static async connect(
    url: string,
    username?: string,
    password?: string,
    protocolVersion: 4 | 5 = 4,
  ): Promise<RecordingClient> {
    const client = mqtt.connect(url, {
      protocolVersion,
      reconnectPeriod: 200,
      connectTimeout: 3000,
      ...(username ? { username, password } : {}),
    });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    return new RecordingClient(client);
  }

  async subscribe(topic: string): Promise<void> {
    await this.client.subscribeAsync(topic, { qos: 1 });
  }
  /**
   * Publish at QoS 1. A broker that refuses the publish may drop it silently or close the
   * connection (aedes), so the acknowledgement is awaited for at most `ackSeconds`.
   */
  async publish(topic: string, payload: string, ackSeconds = 1): Promise<'acked' | 'no-ack'> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'no-ack'>((r) => (timer = setTimeout(() => r('no-ack'), ackSeconds * 1000)));
    const acked = this.client.publishAsync(topic, payload, { qos: 1 }).then(
      () => 'acked' as const,
      () => 'no-ack' as const,
    );
    const r = await Promise.race([acked, timeout]);
    clearTimeout(timer);
    return r;
  }

  /** Wait for a message matching `pred` (already received or future), failing after `seconds`. */
  waitFor(pred: (topic: string, payload: string) => boolean, seconds = 5, what = 'a message'): Promise<void> {
    if (this.messages.some((m) => pred(m.topic, m.payload))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${seconds}s waiting for ${what}`)),
        seconds * 1000,
      );
      this.waiters.push({ pred, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async end(): Promise<void> {
    await this.client.endAsync(true);
  }
}
