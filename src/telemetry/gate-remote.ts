/**
 * Wires MQTT to the gate: remote e-stop, release and labels in; gate state and events out.
 * Authorisation happens at the broker (embedded: AccessPolicy; external: its ACL), so commands
 * that reach this handler come from clients the broker let publish them.
 *
 * A remote e-stop latches the gate like a local one; an authorised release clears the remote
 * e-stop (the release is the operator's acknowledgement) and is still refused while any other
 * cause persists.
 */
import type { Clock } from '../util/clock.js';
import { describeCause, type Gate } from '../gate/index.js';
import type { LabelCommand } from './payloads.js';
import type { MqttLink, RemoteCommandHandler } from './mqtt-link.js';

export interface LabelSink {
  label(cmd: LabelCommand, t: number): { ok: true } | { ok: false; reason: string };
}

export interface GateRemoteOptions {
  /** Operator dead-man: when set, no heartbeat for this long holds the gate. */
  heartbeatTimeout?: number;
}

export class GateRemote implements RemoteCommandHandler {
  private lastHeartbeat = NaN;
  private heartbeatLost = false;
  private heartbeatFault: { kind: string; source: string; detail: string } | undefined;
  /** Why the remote e-stop or heartbeat cannot arrive (a refused subscription), or null. */
  private commandChannelLost: string | null = null;

  constructor(
    private readonly gate: Gate,
    private readonly clock: Clock,
    private readonly labels: LabelSink | undefined,
    private readonly options: GateRemoteOptions = {},
  ) {}

  /** Publish gate state and transitions on `link`; refused/invalid commands become events. */
  attach(link: MqttLink): void {
    link.publishGate(this.clock.now(), this.gate.state, this.gate.holdCause ? describeCause(this.gate.holdCause) : 'started');
    this.gate.onEvent((e) => {
      link.publishGate(e.t, e.to, describeCause(e.cause));
      link.publishEvent(e.t, 'gate-transition', `${e.from} → ${e.to}: ${describeCause(e.cause)}`);
    });
    link.onEvent((e) => {
      if (e.kind === 'invalid-command') link.publishEvent(this.clock.now(), 'command-invalid', `${e.topic}: ${e.error}`);
      if (e.kind === 'command-refused') link.publishEvent(this.clock.now(), 'command-refused', `${e.topic}: ${e.reason}`);
      if (e.kind === 'command-failed') link.publishEvent(this.clock.now(), 'command-failed', `${e.topic}: ${e.error}`);
      if (e.kind === 'subscribe-refused') this.subscriptionRefused(e.topics, e.detail, link);
      if (e.kind === 'subscribed') this.commandChannelLost = null;
    });
  }

  /**
   * A remote e-stop or operator heartbeat that cannot arrive is a stop channel that silently does not
   * work: hold, and refuse release until a later (re)subscription is granted. A refused label or
   * chunk topic only loses that feature: reported, no hold.
   */
  private subscriptionRefused(topics: readonly string[], detail: string, link: MqttLink): void {
    const t = this.clock.now();
    link.publishEvent(t, 'subscribe-refused', `${topics.join(', ')}: ${detail}`);
    const stopChannels = topics.filter((topic) => topic.endsWith('/cmd/estop') || topic.endsWith('/cmd/heartbeat'));
    if (stopChannels.length === 0) return;
    this.commandChannelLost = `broker refused ${stopChannels.join(', ')} (${detail})`;
    this.gate.fault(t, { kind: 'subscribe-refused', source: 'mqtt', detail: this.commandChannelLost });
  }

  estop(cmd: { reason?: string }): void {
    this.gate.eStop(this.clock.now(), `mqtt${cmd.reason ? ` (${cmd.reason})` : ''}`);
  }

  release(): { ok: true } | { ok: false; reason: string } {
    const t = this.clock.now();
    if (this.heartbeatLost) return { ok: false, reason: 'release refused: operator heartbeat lost' };
    if (this.commandChannelLost !== null) return { ok: false, reason: `release refused: ${this.commandChannelLost}` };
    this.gate.eStopCleared();
    return this.gate.release(t, { by: 'mqtt operator', authorised: true });
  }

  label(cmd: LabelCommand): { ok: true } | { ok: false; reason: string } {
    if (!this.labels) return { ok: false, reason: 'no episode is recording labels' };
    return this.labels.label(cmd, this.clock.now());
  }

  heartbeat(): void {
    this.lastHeartbeat = this.clock.now();
    this.heartbeatLost = false;
  }

  /**
   * Call once per control step when the dead-man is configured: holds the gate when the operator
   * heartbeat has been missing for longer than the timeout (including never received).
   */
  checkHeartbeat(t: number): void {
    const timeout = this.options.heartbeatTimeout;
    if (timeout === undefined) return;
    const age = this.lastHeartbeat === this.lastHeartbeat ? t - this.lastHeartbeat : Infinity;
    if (age > timeout) {
      // Re-reported every control step while lost so the fault persists (and release stays
      // refused): the same fault object each time, so the per-step path allocates nothing.
      this.heartbeatLost = true;
      this.heartbeatFault ??= { kind: 'remote-heartbeat', source: 'mqtt', detail: `no operator heartbeat within ${timeout} s` };
      this.gate.fault(t, this.heartbeatFault);
    }
  }
}
