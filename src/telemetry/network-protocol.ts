/**
 * Messages between the control thread and the network worker (src/telemetry/network-host.ts).
 * Everything the network receives is parsed and validated in the worker; the control thread gets
 * small typed commands, and chunk requests already decoded from JSON (bounded by the size limit).
 */
import type { AccessConfig } from './access.js';
import type { SizeGuardLimits } from './mqtt-size-guard.js';
import type { ChunkRateLimit } from './chunk-admission.js';
import type { LinkEvent } from './mqtt-link.js';
import type { DecodedChunkRequest } from '../runtime/chunk-transport.js';
import type {
  EStopLatchPayload,
  EpisodePayload,
  EstopCommand,
  EstopResetCommand,
  GateStateName,
  LabelCommand,
  ReleaseCommand,
} from './payloads.js';

export interface NetworkHostConfig {
  broker:
    | { kind: 'embedded'; port: number; host: string; access: AccessConfig; limits?: SizeGuardLimits }
    | { kind: 'external'; url: string; username?: string; password?: string; protocolVersion: 4 | 5 };
  robot: string;
  connectTimeoutSeconds: number;
  /** Viewer credentials default to the embedded broker's per-process viewer. */
  dashboard?: { port: number; host?: string; viewer?: { username: string; password: string } };
  /** Chunk requests above this rate are answered `rate-limit` undecoded (chunk-admission.ts); default DEFAULT_CHUNK_RATE_LIMIT. */
  chunkRate?: ChunkRateLimit;
  /** The worker thread's nice value (thread-priority.ts); default NETWORK_WORKER_NICE. */
  nice?: number;
}

export type WorkerCommand =
  | { kind: 'estop'; value: EstopCommand }
  | { kind: 'estop-reset'; value: EstopResetCommand; topic: string }
  | { kind: 'release'; value: ReleaseCommand; topic: string }
  | { kind: 'label'; value: LabelCommand; topic: string }
  | { kind: 'heartbeat'; seq: number }
  | { kind: 'chunk'; request: DecodedChunkRequest };

/**
 * The gate's clock seen from the worker: gate time `gate` (s) was read at `epochMs` (performance.timeOrigin
 * + performance.now(), ms — comparable across threads); the worker extrapolates from the latest pair.
 */
export interface GateClockSync {
  gate: number;
  epochMs: number;
}

export type FromWorker =
  | {
      type: 'started';
      url: string;
      connected: boolean;
      lastError: string;
      dashboardUrl?: string;
      /** What the worker made of its priority and the chunk rate limit (for the start-up line). */
      settings: string;
    }
  | { type: 'start-failed'; error: string }
  | { type: 'command'; command: WorkerCommand }
  | { type: 'link-event'; event: LinkEvent }
  | { type: 'refused'; text: string }
  | { type: 'counters'; dropped: number }
  | { type: 'stopped' };

export type ToWorker =
  | { type: 'margins'; t: number; margins: Record<string, number | null>; band: Record<string, number> }
  | { type: 'gate'; t: number; state: GateStateName; cause: string; estop?: EStopLatchPayload[] }
  | { type: 'event'; t: number; kind: string; detail: string }
  | { type: 'episode'; payload: Omit<EpisodePayload, 'v' | 'robot'> }
  | { type: 'label'; label: object }
  | { type: 'chunk-result'; text: string }
  /** The control thread took a step: it may take the next chunk request (src/telemetry/chunk-pacer.ts). */
  | { type: 'chunk-credit'; clock: GateClockSync }
  | { type: 'stop' };
