/**
 * The MQTT topic tree, one subtree per robot (documented in README "MQTT topics"):
 *
 *   armguard/v1/<robot>/margins         out  per-clause normalised margins, decimated
 *   armguard/v1/<robot>/margins/history out  the last 20 s of margins (retained, re-published every second)
 *   armguard/v1/<robot>/gate            out  gate state and cause (retained)
 *   armguard/v1/<robot>/events          out  gate transitions, faults, rejected commands
 *   armguard/v1/<robot>/episode         out  episode start/end (retained: the current episode)
 *   armguard/v1/<robot>/labels          out  labels as recorded
 *   armguard/v1/<robot>/cmd/estop       in   e-stop (any authenticated client); latches
 *   armguard/v1/<robot>/cmd/estop-reset in   clear one latched e-stop, naming who pressed it (operators only)
 *   armguard/v1/<robot>/cmd/release     in   release a hold (operators only)
 *   armguard/v1/<robot>/cmd/label       in   success/failure and manual labels (operators only)
 *   armguard/v1/<robot>/cmd/heartbeat   in   operator dead-man heartbeat
 *   armguard/v1/<robot>/chunk/request   in   proposed action chunks (policy clients only)
 *   armguard/v1/<robot>/chunk/result    out  the executed chunk with verdict and reason
 */
export const TOPIC_ROOT = 'armguard/v1';

export type OutboundKind = 'margins' | 'margins/history' | 'gate' | 'events' | 'episode' | 'labels' | 'chunk/result';
export type InboundKind =
  | 'cmd/estop'
  | 'cmd/estop-reset'
  | 'cmd/release'
  | 'cmd/label'
  | 'cmd/heartbeat'
  | 'chunk/request';
export const INBOUND_KINDS: readonly InboundKind[] = [
  'cmd/estop',
  'cmd/estop-reset',
  'cmd/release',
  'cmd/label',
  'cmd/heartbeat',
  'chunk/request',
];

const ROBOT_ID = /^[A-Za-z0-9_.-]{1,64}$/;

export function isValidRobotId(id: string): boolean {
  return ROBOT_ID.test(id);
}

export function topicFor(robot: string, kind: OutboundKind | InboundKind): string {
  return `${TOPIC_ROOT}/${robot}/${kind}`;
}

/** Every kind of the tree (parseTopic runs once per publish the embedded broker authorises). */
const KINDS: ReadonlySet<string> = new Set<OutboundKind | InboundKind>([
  'margins',
  'margins/history',
  'gate',
  'events',
  'episode',
  'labels',
  'chunk/result',
  ...INBOUND_KINDS,
]);
const ROOT_PREFIX = `${TOPIC_ROOT}/`;

/** Parse a topic of the tree into robot and kind; undefined when it is not one of ours. */
export function parseTopic(topic: string): { robot: string; kind: OutboundKind | InboundKind } | undefined {
  if (!topic.startsWith(ROOT_PREFIX)) return undefined;
  const rest = topic.slice(TOPIC_ROOT.length + 1);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const robot = rest.slice(0, slash);
  const kind = rest.slice(slash + 1);
  if (!isValidRobotId(robot)) return undefined;
  return KINDS.has(kind) ? { robot, kind: kind as OutboundKind | InboundKind } : undefined;
}

/**
 * Which inbound commands need the operator role (e-stop reset, release, label, the operator's dead-man heartbeat:
 * a viewer or the policy must not keep it alive) or the policy role (chunks); e-stop is anyone's.
 */
export function requiredRole(kind: InboundKind): 'any' | 'operator' | 'policy' {
  switch (kind) {
    case 'cmd/estop':
      return 'any';
    case 'cmd/heartbeat':
    case 'cmd/estop-reset':
    case 'cmd/release':
    case 'cmd/label':
      return 'operator';
    case 'chunk/request':
      return 'policy';
  }
}
