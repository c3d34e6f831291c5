/** A SignalSource for tests: the test sets what the next poll delivers and can raise faults. */
import type { Fault, FaultListener, SignalSource } from '../../../src/ports/index.js';
import type { SignalFrame, SignalName } from '../../../src/schema/signals.js';
import { signalIndex } from '../../../src/schema/signals.js';

export class ScriptedSource implements SignalSource {
  readonly name = 'scripted';
  private readonly listeners: FaultListener[] = [];
  /** Values delivered (stamped `now`) on each poll; a name mapped to undefined is not refreshed. */
  readonly live = new Map<SignalName, number | undefined>();
  pollThrows: Error | null = null;

  poll(frame: SignalFrame, now: number): void {
    if (this.pollThrows) throw this.pollThrows;
    for (const [name, v] of this.live) if (v !== undefined) frame.set(signalIndex(name)!, v, now, this.name);
  }
  onFault(listener: FaultListener): void {
    this.listeners.push(listener);
  }
  raise(fault: Fault, t: number): void {
    for (const l of this.listeners) l(fault, t);
  }
}
