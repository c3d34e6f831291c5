export { MonitorBank, type BankClause, type ClauseMonitor, type ClauseSpecLike } from './monitor-bank.js';
export { MemoryEventSink, type GateEventSink } from './events.js';
export { ChunkExecutor, type ChunkExecutorOptions, type ChunkPath } from './chunk-executor.js';
export { Pipeline, type FrameMonitors, type PipelineOptions } from './pipeline.js';
export {
  InProcessChunkChannel,
  type ChunkClientTransport,
  type ChunkServerTransport,
  type DecodedChunkRequest,
} from './chunk-transport.js';
export { ChunkServer, type ChunkSubmitter } from './chunk-server.js';
export { ChunkClient, parseResult } from './chunk-client.js';
export { BASELINE_RELEASE_BY, GateOffBaseline, type GateOffBaselineOptions } from './gate-off-baseline.js';
export { composePipeline, type BarrierModel, type ComposedRuntime, type PlatformRig, type RigLimits } from './rig.js';
export { EpisodeTap, type EpisodeRecordSink, type EpisodeStore, type EpisodeStoreHooks } from './episode-tap.js';
export { Session, type SessionOptions, type SessionTelemetry, type TaskSemantic } from './session.js';
