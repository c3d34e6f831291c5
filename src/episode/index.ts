/** Episode files (design §8): recorder, reader, labels, index, repair. */
export {
  MANUAL_VERDICTS,
  type ChunkRecord,
  type ClauseSummary,
  type EffectiveLabel,
  type EndRecord,
  type EpisodeIndexEntry,
  type EpisodeRecord,
  type EpisodeRecordKind,
  type EpisodeStart,
  type EpisodeTraceFromFile,
  type ExecutedChunkRecord,
  type FrameRecord,
  type GateRecord,
  type LabelInput,
  type LabelRecord,
  type LabelSource,
  type ManualVerdict,
  type RawRecord,
  type RobustnessRecord,
  type SemanticRecord,
  type Versions,
  type VersionsRecord,
} from './types.js';
export { EPISODE_METADATA_NAME, JSON_CHANNELS, KIND_BY_TOPIC, MCAP_PROFILE, type JsonKind } from './channels.js';
export { StreamingMcapWriter } from '../mcap/streaming-writer.js';
export { MemoryFileWritable, type FileWritable } from '../mcap/index.js';
export { NodeFileWritable } from '../platform/file-writable.js';
export {
  ARMGUARD_VERSION,
  DEFAULT_FLUSH_INTERVAL_S,
  EpisodeRecorder,
  type EpisodeStartInput,
  type RecorderOptions,
  type RecorderStats,
} from './recorder.js';
export { readEpisode, type EpisodeScan, type ReadOptions } from './reader.js';
export {
  UnlabelledEpisodeError,
  episodeTraces,
  readEpisodeTrace,
  readLabels,
  type TraceOptions,
  type UnlabelledEpisode,
} from './trace.js';
export { effectiveLabel, labelRecordFrom } from './labels.js';
export { appendLabel, type AppendLabelOptions } from './append-label.js';
export {
  INDEX_FILE_NAME,
  appendIndexEntry,
  clauseSummary,
  indexEpisodeFile,
  indexKey,
  readIndex,
  rebuildIndex,
  updateEntryWithLabel,
} from './episode-index.js';
export { startEpisodeInDir, type EpisodeInDir } from './episode-dir.js';
export {
  describeRepair,
  repairLoss,
  repairLostData,
  repairMcapFile,
  type RepairOptions,
  type RepairReport,
} from './repair.js';
export { EpisodeManager, type EpisodeManagerOptions } from './episode-manager.js';
