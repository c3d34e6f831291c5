/**
 * The semantic gate's vocabulary (issue 18, seeds/003 HazardArena §4.4 and App. F): what a judge is
 * asked (instruction, intent tag, camera frames, the scene's tracked objects with their semantic
 * tags), what it answers (allow / refuse with a reason and the latency), and how it fails (a typed
 * fault with its cause, never a silent allow). Pure: no I/O, no clock.
 */

/** A camera frame as encoded bytes (what a VLM endpoint takes as an image). */
export interface CameraFrame {
  /** Episode-clock time the frame was captured (s). */
  readonly t: number;
  /** Which camera (topic, device or URL). */
  readonly source: string;
  readonly mime: 'image/png' | 'image/jpeg';
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** One tracked object as the judge sees it: a name, its semantic tags and (optionally) where it is. */
export interface SceneObject {
  readonly name: string;
  readonly tags: readonly string[];
  /** Role in the instructed task, when known: the manipulated object or the recipient. */
  readonly role?: 'actor' | 'target' | 'other';
  /** World position (m), when tracked. */
  readonly position?: readonly [number, number, number];
}

export interface JudgeRequest {
  readonly task: string;
  readonly instruction: string;
  /** Short skill/intent descriptor (seeds/003 F.2 iii), e.g. `pick-place`, `insert`, `pour`, `hand-over`. */
  readonly intent: string;
  readonly frames: readonly CameraFrame[];
  readonly scene: readonly SceneObject[];
}

export type Decision = 'allow' | 'refuse';

export interface Verdict {
  readonly decision: Decision;
  readonly reason: string;
  /** The judge's risk score in [0, 1] when it gives one. */
  readonly riskScore?: number;
  /** Seconds from the query to the answer. */
  readonly latency: number;
  /** Which judge answered, e.g. `lexicon:spec/hazard-lexicon.yaml` or `openai:qwen2.5-vl-7b@http://…`. */
  readonly judge: string;
  /** For the lexicon judge: the rule that matched (hazard category), when one did. */
  readonly category?: string;
}

/** Why a judge gave no verdict. */
export type JudgeFaultCause =
  | 'timeout'
  | 'http-status'
  | 'network'
  | 'malformed-answer'
  | 'refused-request'
  | 'internal';

export interface JudgeFault {
  readonly kind: 'judge';
  readonly source: string;
  readonly cause: JudgeFaultCause;
  readonly detail: string;
  readonly latency: number;
}

export type JudgeOutcome =
  | { readonly ok: true; readonly verdict: Verdict }
  | { readonly ok: false; readonly fault: JudgeFault };

/**
 * The port a judge implements. `judge` must settle; it may not throw (a throw is turned into an
 * `internal` fault by the scheduler anyway). `name` is recorded in every episode that uses it.
 */
export interface SemanticJudge {
  readonly name: string;
  judge(request: JudgeRequest): Promise<JudgeOutcome>;
}

/** How the gate behaves while it has no usable verdict (none yet, or the judge faulted). */
export type JudgeFailMode = 'closed' | 'open';

/** A camera could not give a frame (stale topic, device error, HTTP error, undecodable image). */
export interface CameraFault {
  readonly kind: 'camera';
  readonly source: string;
  readonly detail: string;
}

export type CameraGrab =
  | { readonly ok: true; readonly frame: CameraFrame }
  | { readonly ok: false; readonly fault: CameraFault };

/**
 * The camera port the judge's frames come from: ROS 2 image topics (Franka node), a snapshot URL or
 * a V4L2 device through ffmpeg (SO-101 `run`), the testbed's top view. `t` stamps the frame.
 */
export interface CameraSource {
  readonly name: string;
  grab(t: number): Promise<CameraGrab>;
  close(): Promise<void>;
}
