/**
 * Wires MQTT to the gate: remote e-stop, release and labels in; gate state and events out.
 * Authorisation happens at the broker (embedded: AccessPolicy; external: its ACL), so commands
 * that reach this handler come from clients the broker let publish them.
 *
 * A remote e-stop latches the gate like a local one, whatever its state; it is cleared only by an
 * e-stop reset (cmd/estop-reset, operator role) naming who pressed it, never by a release. The
 * retained gate state carries the latch and who pressed each e-stop.
 *
 * When the command channel that carries the e-stop is down (connection lost, subscription refused)
 * the remote e-stop cannot arrive: with `onLinkLoss: 'hold'` (the default) the gate holds, with a
 * fault re-reported every control step until the channel is back, so a release is refused for that
 * long; with 'warn' the loss is only recorded. Either way the loss is reported as a fault.
 */
import type { Clock } from '../util/clock.js';
import { describeCause, type Gate } from '../gate/index.js';
import { faultDetail, type Fault } from '../schema/fault.js';
import type { EstopCommand, EstopResetCommand, LabelCommand } from './payloads.js';
import type { RemoteCommandHandler, TelemetryLink } from './mqtt-link.js';
import type { Verdict } from '../util/result.js';

export interface LabelSink {
  label(cmd: LabelCommand, t: number): Verdict;
}

export type LinkLossPolicy = 'hold' | 'warn';

export interface GateRemoteOptions {
  /** Operator dead-man: when set, no heartbeat for this long holds the gate. */
  heartbeatTimeout?: number;
  /** What a lost command channel does (default 'hold'). */
  onLinkLoss?: LinkLossPolicy;
  /** Called once per loss of the command channel (and for a refused subscription), whatever the policy: record it. */
  onFault?: (fault: Fault, t: number) => void;
}

export class GateRemote implements RemoteCommandHandler {
  private lastHeartbeat = NaN;
  private heartbeatLost = false;
  private heartbeatFault: Fault | undefined;
  /** Why the remote e-stop or heartbeat cannot arrive (a refused subscription), or null. */
  private commandChannelLost: string | null = null;
  /** Why the connection that carries the remote e-stop is down, or null; down until the first subscription is granted. */
  private linkDown: string | null = 'not connected to the broker yet';
  private linkFault: Fault | undefined;
  private link: TelemetryLink | undefined;
  private detached = false;

  constructor(
    private readonly gate: Gate,
    private readonly clock: Clock,
    private readonly labels: LabelSink | undefined,
    private readonly options: GateRemoteOptions = {},
  ) {}

  /** Publish gate state and transitions on `link`; refused/invalid commands become events. */
  attach(link: TelemetryLink): void {
    this.link = link;
    link.publishGate(
      this.clock.now(),
      this.gate.state,
      this.gate.holdCause ? describeCause(this.gate.holdCause) : 'started',
      this.gate.eStops,
    );
    this.gate.onEvent((e) => {
      link.publishGate(e.t, e.to, describeCause(e.cause), this.gate.eStops);
      // hold → hold: an e-stop pressed or reset while holding
      if (e.from === e.to) link.publishEvent(e.t, e.cause.kind, describeCause(e.cause));
      else link.publishEvent(e.t, 'gate-transition', `${e.from} → ${e.to}: ${describeCause(e.cause)}`);
    });
    link.onEvent((e) => {
      if (e.kind === 'invalid-command')
        link.publishEvent(this.clock.now(), 'command-invalid', `${e.topic}: ${e.error}`);
      if (e.kind === 'command-refused')
        link.publishEvent(this.clock.now(), 'command-refused', `${e.topic}: ${e.reason}`);
      if (e.kind === 'command-failed') link.publishEvent(this.clock.now(), 'command-failed', `${e.topic}: ${e.error}`);
      if (e.kind === 'subscribe-refused') this.subscriptionRefused(e.topics, e.detail, link);
      if (e.kind === 'subscribed') {
        this.commandChannelLost = null;
        if (this.linkDown !== null) this.linkRestored();
      }
      if (e.kind === 'offline') this.linkLost(e.detail);
    });
  }

  /** The link policy in force. */
  get onLinkLoss(): LinkLossPolicy {
    return this.options.onLinkLoss ?? 'hold';
  }
  /** Why the command channel is down now, or null. */
  get commandChannelDown(): string | null {
    return this.linkDown ?? this.commandChannelLost;
  }

  /** armguard is shutting down: the link closing is not a fault. */
  detach(): void {
    this.detached = true;
  }

  /** The command channel is down (the link reports it; `startTelemetry` when the first connection fails). */
  linkLost(detail: string): void {
    if (this.detached || (this.linkDown !== null && this.linkFault !== undefined)) return;
    this.linkDown = detail;
    const t = this.clock.now();
    const action = this.onLinkLoss === 'hold' ? 'holding until it is back' : 'not holding (--on-link-loss warn)';
    this.linkFault = {
      kind: 'mqtt-link-lost',
      source: 'mqtt',
      detail: `command channel (remote e-stop) down: ${detail}; ${action}`,
    };
    this.options.onFault?.(this.linkFault, t);
    if (this.onLinkLoss === 'hold') this.gate.fault(t, this.linkFault);
  }

  private linkRestored(): void {
    const was = this.linkFault;
    this.linkDown = null;
    this.linkFault = undefined;
    if (was)
      this.link?.publishEvent(
        this.clock.now(),
        'mqtt-link-restored',
        `command channel back (was: ${faultDetail(was)})`,
      );
  }

  /**
   * A remote e-stop or operator heartbeat that cannot arrive is a stop channel that silently does not
   * work: hold, and refuse release until a later (re)subscription is granted. A refused label or
   * chunk topic only loses that feature: reported, no hold.
   */
  private subscriptionRefused(topics: readonly string[], detail: string, link: TelemetryLink): void {
    const t = this.clock.now();
    link.publishEvent(t, 'subscribe-refused', `${topics.join(', ')}: ${detail}`);
    const stopChannels = topics.filter((topic) => topic.endsWith('/cmd/estop') || topic.endsWith('/cmd/heartbeat'));
    if (stopChannels.length === 0) return;
    this.commandChannelLost = `broker refused ${stopChannels.join(', ')} (${detail})`;
    const fault: Fault = { kind: 'subscribe-refused', source: 'mqtt', detail: this.commandChannelLost };
    this.options.onFault?.(fault, t);
    this.gate.fault(t, fault);
  }

  /** Latches whatever the gate's state; `by` names the sender's reason, `id` the press. */
  estop(cmd: EstopCommand): void {
    this.gate.eStop(this.clock.now(), `mqtt${cmd.reason ? ` (${cmd.reason})` : ''}`, cmd.id);
  }

  estopReset(cmd: EstopResetCommand): Verdict {
    return this.gate.resetEStop(this.clock.now(), {
      by: `mqtt operator${cmd.note ? ` (${cmd.note})` : ''}`,
      pressedBy: cmd.pressedBy,
      authorised: true,
    });
  }

  release(): Verdict {
    const t = this.clock.now();
    if (this.heartbeatLost) return { ok: false, reason: 'release refused: operator heartbeat lost' };
    if (this.commandChannelLost !== null) return { ok: false, reason: `release refused: ${this.commandChannelLost}` };
    return this.gate.release(t, { by: 'mqtt operator', authorised: true });
  }

  label(cmd: LabelCommand): Verdict {
    if (!this.labels) return { ok: false, reason: 'no episode is recording labels' };
    return this.labels.label(cmd, this.clock.now());
  }

  heartbeat(): void {
    this.lastHeartbeat = this.clock.now();
    this.heartbeatLost = false;
  }

  /**
   * Call once per control step: while the command channel is down (policy 'hold') the link fault is
   * re-reported so it persists; with the dead-man configured, holds the gate when the operator
   * heartbeat has been missing for longer than the timeout (including never received).
   */
  checkStep(t: number): void {
    if (this.linkFault !== undefined && this.onLinkLoss === 'hold') this.gate.fault(t, this.linkFault);
    this.checkHeartbeat(t);
  }

  private checkHeartbeat(t: number): void {
    const timeout = this.options.heartbeatTimeout;
    if (timeout === undefined) return;
    const age = this.lastHeartbeat === this.lastHeartbeat ? t - this.lastHeartbeat : Infinity;
    if (age > timeout) {
      // Re-reported every control step while lost so the fault persists (and release stays
      // refused): the same fault object each time, so the per-step path allocates nothing.
      this.heartbeatLost = true;
      this.heartbeatFault ??= {
        kind: 'remote-heartbeat',
        source: 'mqtt',
        detail: `no operator heartbeat within ${timeout} s`,
      };
      this.gate.fault(t, this.heartbeatFault);
    }
  }
}
