/**
 * The VLA chunk interface over MQTT (design §7): policies publish chunk JSON on
 * `armguard/v1/<robot>/chunk/request` and receive the executed chunk on `.../chunk/result`
 * (QoS 1 both ways). Only clients with the policy role may publish requests (broker ACL).
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { ChunkClientTransport, ChunkServerTransport } from '../runtime/chunk-transport.js';
import type { MqttLink, RemoteCommandHandler } from './mqtt-link.js';
import { topicFor } from './topics.js';
import { Listeners } from '../util/listeners.js';

/** armguard's end: requests come through the link's command handler, results go out on the link. */
export class MqttChunkServerTransport implements ChunkServerTransport {
  private readonly handlers = new Listeners<[payload: string]>();
  constructor(private readonly link: MqttLink) {}

  /** Route the link's chunk requests here (compose into the RemoteCommandHandler given to the link). */
  readonly onChunkBytes: NonNullable<RemoteCommandHandler['chunk']> = (bytes) => {
    const text = new TextDecoder().decode(bytes);
    this.handlers.emit(text);
  };
  onRequest(handler: (payload: string) => void): void {
    this.handlers.add(handler);
  }
  respond(payload: string): void {
    this.link.publishChunkResult(payload);
  }
}

/** A policy's end (Node): connect with policy credentials, send chunks, receive results. */
export class MqttChunkClientTransport implements ChunkClientTransport {
  private readonly handlers = new Listeners<[payload: string]>();
  private constructor(
    private readonly client: MqttClient,
    private readonly robot: string,
  ) {
    client.on('message', (topic, payload) => {
      if (topic === topicFor(robot, 'chunk/result')) this.handlers.emit(payload.toString());
    });
  }

  static async connect(options: {
    url: string;
    robot: string;
    username: string;
    password: string;
    protocolVersion?: 4 | 5;
  }): Promise<MqttChunkClientTransport> {
    const client = await mqtt.connectAsync(options.url, {
      protocolVersion: options.protocolVersion ?? 4,
      username: options.username,
      password: options.password,
      reconnectPeriod: 500,
    });
    await client.subscribeAsync(topicFor(options.robot, 'chunk/result'), { qos: 1 });
    return new MqttChunkClientTransport(client, options.robot);
  }

  send(payload: string): void {
    this.client.publish(topicFor(this.robot, 'chunk/request'), payload, { qos: 1 });
  }
  onResponse(handler: (payload: string) => void): void {
    this.handlers.add(handler);
  }
  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
