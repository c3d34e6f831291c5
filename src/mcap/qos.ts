/**
 * QoS profiles as rosbag2 stores them in the MCAP channel metadata key `offered_qos_profiles`: a
 * YAML list of profiles with the rmw enums as integers (as in every bag under
 * shared/data/rosbag2-test-bags: `history: 3`, `reliability: 1`, `durability: 2`, `liveliness: 1`)
 * and durations as {sec, nsec}; "infinite" is sec 9223372036 / nsec 854775807 (Iron and later).
 */
import { parse as parseYaml } from 'yaml';

/** rmw_qos_history_policy_e */
export const QosHistory = { systemDefault: 0, keepLast: 1, keepAll: 2, unknown: 3 } as const;
/** rmw_qos_reliability_policy_e */
export const QosReliability = { systemDefault: 0, reliable: 1, bestEffort: 2, unknown: 3, bestAvailable: 4 } as const;
/** rmw_qos_durability_policy_e */
export const QosDurability = {
  systemDefault: 0,
  transientLocal: 1,
  volatile: 2,
  unknown: 3,
  bestAvailable: 4,
} as const;
/** rmw_qos_liveliness_policy_e */
export const QosLiveliness = {
  systemDefault: 0,
  automatic: 1,
  manualByTopic: 3,
  unknown: 4,
  bestAvailable: 5,
} as const;

export interface QosDuration {
  sec: number;
  nsec: number;
}
export interface QosProfile {
  history: number;
  depth: number;
  reliability: number;
  durability: number;
  deadline: QosDuration;
  lifespan: QosDuration;
  liveliness: number;
  liveliness_lease_duration: QosDuration;
  avoid_ros_namespace_conventions: boolean;
}

export const INFINITE_DURATION: QosDuration = { sec: 9223372036, nsec: 854775807 };

/** What the recorder observes of a publisher: history/depth are not visible over DDS (3 / 0). */
export function offeredQos(
  reliability: 'reliable' | 'best_effort',
  durability: 'volatile' | 'transient_local' = 'volatile',
): QosProfile {
  return {
    history: QosHistory.unknown,
    depth: 0,
    reliability: reliability === 'reliable' ? QosReliability.reliable : QosReliability.bestEffort,
    durability: durability === 'volatile' ? QosDurability.volatile : QosDurability.transientLocal,
    deadline: { ...INFINITE_DURATION },
    lifespan: { ...INFINITE_DURATION },
    liveliness: QosLiveliness.automatic,
    liveliness_lease_duration: { ...INFINITE_DURATION },
    avoid_ros_namespace_conventions: false,
  };
}

/** Serialize exactly in rosbag2's layout (field order and indentation as in the recorded bags). */
export function serializeQosProfiles(profiles: readonly QosProfile[]): string {
  const dur = (name: string, d: QosDuration) => `  ${name}:\n    sec: ${d.sec}\n    nsec: ${d.nsec}`;
  return profiles
    .map((p) =>
      [
        `- history: ${p.history}`,
        `  depth: ${p.depth}`,
        `  reliability: ${p.reliability}`,
        `  durability: ${p.durability}`,
        dur('deadline', p.deadline),
        dur('lifespan', p.lifespan),
        `  liveliness: ${p.liveliness}`,
        dur('liveliness_lease_duration', p.liveliness_lease_duration),
        `  avoid_ros_namespace_conventions: ${p.avoid_ros_namespace_conventions}`,
      ].join('\n'),
    )
    .join('\n');
}

function intField(o: Record<string, unknown>, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isInteger(v))
    throw new Error(`${where}: '${key}' must be an integer, got ${JSON.stringify(v)}`);
  return v;
}
function durationField(o: Record<string, unknown>, key: string, where: string): QosDuration {
  const v = o[key];
  if (v === undefined) return { ...INFINITE_DURATION };
  if (typeof v !== 'object' || v === null) throw new Error(`${where}: '${key}' must be {sec, nsec}`);
  const d = v as Record<string, unknown>;
  return { sec: intField(d, 'sec', `${where}.${key}`), nsec: intField(d, 'nsec', `${where}.${key}`) };
}

/** Parse an `offered_qos_profiles` value; an empty string (older bags) is an empty list. */
export function parseQosProfiles(text: string): QosProfile[] {
  if (text.trim() === '') return [];
  const doc: unknown = parseYaml(text);
  if (!Array.isArray(doc)) throw new Error('offered_qos_profiles: expected a YAML list of profiles');
  return doc.map((raw: unknown, i) => {
    const where = `offered_qos_profiles[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw new Error(`${where}: expected a mapping`);
    const o = raw as Record<string, unknown>;
    return {
      history: intField(o, 'history', where),
      depth: intField(o, 'depth', where),
      reliability: intField(o, 'reliability', where),
      durability: intField(o, 'durability', where),
      deadline: durationField(o, 'deadline', where),
      lifespan: durationField(o, 'lifespan', where),
      liveliness: intField(o, 'liveliness', where),
      liveliness_lease_duration: durationField(o, 'liveliness_lease_duration', where),
      avoid_ros_namespace_conventions: o['avoid_ros_namespace_conventions'] === true,
    };
  });
}
