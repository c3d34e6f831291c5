/** What the runtime reports to the episode recorder and telemetry (implemented by others). */
import type { ExecutedChunk } from '../gate/chunk.js';
import type { GateEvent } from '../gate/events.js';
import type { Fault } from '../ports/index.js';

export interface GateEventSink {
  /** Every gate transition, in order. */
  gateEvent(event: GateEvent): void;
  /** Every chunk decision (rejected, held, executed, filtered) at gate time t. */
  chunkResult(result: ExecutedChunk, t: number): void;
  /** Every fault reported by a source or sink (also those while already holding). */
  fault(fault: Fault, t: number): void;
}

/** Keeps everything in memory (tests, short sessions). */
export class MemoryEventSink implements GateEventSink {
  readonly events: GateEvent[] = [];
  readonly chunks: { result: ExecutedChunk; t: number }[] = [];
  readonly faults: { fault: Fault; t: number }[] = [];
  gateEvent(event: GateEvent): void {
    this.events.push(event);
  }
  chunkResult(result: ExecutedChunk, t: number): void {
    this.chunks.push({ result, t });
  }
  fault(fault: Fault, t: number): void {
    this.faults.push({ fault, t });
  }
}
