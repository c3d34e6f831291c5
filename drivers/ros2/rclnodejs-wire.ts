/**
 * What a message looks like after it crossed a ROS 2 graph into rclnodejs, for the FAKE graph
 * (fake-ros-graph.ts) to deliver the same thing. Facts from rclnodejs's message generator and
 * translator (rosidl_gen/templates/message.dot, message_translator.js; subscriptions default to
 * `enableTypedArray: true`) and its 0.30 release (int64/uint64 as BigInt):
 * - float64[] / float32[] / int8..uint32[] / char[] / byte[] arrive as typed arrays (Float64Array,
 *   Float32Array, Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array), fixed
 *   size or not;
 * - int64 / uint64 scalars arrive as BigInt, arrays of them as plain arrays of BigInt;
 * - bool[] and string[] arrays and arrays of messages arrive as plain arrays;
 * - a field the publisher left out arrives with its default (0, '', false, empty, the .msg default);
 *   fields the type does not declare do not arrive at all.
 * A publish that does not fit the type (a string in a float64, a fixed-size array of the wrong
 * length, an unknown type) throws, as it does in rclnodejs before anything is sent.
 *
 * The definitions are the upstream .msg/.srv field lists (common_interfaces, franka_msgs,
 * mocap4r2_msgs); src/mcap/msg-definitions.ts holds the ones a bag also needs.
 */
import { parse } from '@foxglove/rosmsg';
import type { MessageDefinition, MessageDefinitionField } from '@foxglove/message-definition';
import { fullDefinition, MSG_DEFINITIONS } from '../../src/mcap/msg-definitions.js';

/** Interface definitions the node and its tests use beyond the bag's (field lists only). */
const GRAPH_DEFINITIONS: Readonly<Record<string, string>> = {
  'builtin_interfaces/msg/Duration': 'int32 sec\nuint32 nanosec\n',
  'std_msgs/msg/String': 'string data\n',
  'std_msgs/msg/Int64': 'int64 data\n',
  'std_msgs/msg/MultiArrayDimension': 'string label\nuint32 size\nuint32 stride\n',
  'std_msgs/msg/MultiArrayLayout': 'MultiArrayDimension[] dim\nuint32 data_offset\n',
  'std_msgs/msg/Float64MultiArray': 'MultiArrayLayout layout\nfloat64[] data\n',
  'trajectory_msgs/msg/JointTrajectoryPoint':
    'float64[] positions\nfloat64[] velocities\nfloat64[] accelerations\nfloat64[] effort\nbuiltin_interfaces/Duration time_from_start\n',
  'trajectory_msgs/msg/JointTrajectory':
    'std_msgs/Header header\nstring[] joint_names\nJointTrajectoryPoint[] points\n',
  'diagnostic_msgs/msg/KeyValue': 'string key\nstring value\n',
  'diagnostic_msgs/msg/DiagnosticStatus':
    'byte OK=0\nbyte WARN=1\nbyte ERROR=2\nbyte STALE=3\nbyte level\nstring name\nstring message\nstring hardware_id\nKeyValue[] values\n',
  'diagnostic_msgs/msg/DiagnosticArray': 'std_msgs/Header header\nDiagnosticStatus[] status\n',
  'geometry_msgs/msg/Transform': 'Vector3 translation\nQuaternion rotation\n',
  'geometry_msgs/msg/TransformStamped': 'std_msgs/Header header\nstring child_frame_id\nTransform transform\n',
  'tf2_msgs/msg/TFMessage': 'geometry_msgs/TransformStamped[] transforms\n',
  'mocap4r2_msgs/msg/Marker': 'int8 id_type\nint32 marker_index\nstring marker_name\ngeometry_msgs/Point translation\n',
  'mocap4r2_msgs/msg/RigidBody': 'string rigid_body_name\nMarker[] markers\ngeometry_msgs/Pose pose\n',
  'mocap4r2_msgs/msg/RigidBodies': 'std_msgs/Header header\nuint32 frame_number\nRigidBody[] rigidbodies\n',
  // Camera frames for the semantic judge (drivers/camera/ros-image.ts)
  'sensor_msgs/msg/Image':
    'std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n',
  'sensor_msgs/msg/CompressedImage': 'std_msgs/Header header\nstring format\nuint8[] data\n',
  // Services: one message type per direction, as rosidl generates them.
  'std_srvs/srv/Trigger_Request': '',
  'std_srvs/srv/Trigger_Response': 'bool success\nstring message\n',
  'std_srvs/srv/SetBool_Request': 'bool data\n',
  'std_srvs/srv/SetBool_Response': 'bool success\nstring message\n',
};

const DEFINITIONS: Readonly<Record<string, string>> = { ...MSG_DEFINITIONS, ...GRAPH_DEFINITIONS };

type TypedArrayCtor =
  | Float64ArrayConstructor
  | Float32ArrayConstructor
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor;

/**
 * rclnodejs's typed-array element types (message.dot `typedArrayType`, `getTypedArrayName`).
 * @foxglove/rosmsg reads ROS 2 `byte` and `char` as uint8, so a char[] field arrives here as a
 * Uint8Array where rclnodejs gives an Int8Array (no interface armguard uses has one).
 */
const TYPED_ARRAYS: Readonly<Record<string, TypedArrayCtor>> = {
  float64: Float64Array,
  float32: Float32Array,
  int8: Int8Array,
  char: Int8Array,
  uint8: Uint8Array,
  byte: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
};
const NUMBERS = new Set(['float64', 'float32', 'int8', 'char', 'uint8', 'byte', 'int16', 'uint16', 'int32', 'uint32']);
const BIGINTS = new Set(['int64', 'uint64']);

/** Converts one published value (of one field) into the delivered value. */
type Convert = (value: unknown) => unknown;

export class WireTypeError extends TypeError {
  override readonly name = 'WireTypeError';
}

function fail(type: string, path: string, expected: string, got: unknown): never {
  const what = got === null ? 'null' : Array.isArray(got) ? 'an array' : typeof got;
  throw new WireTypeError(`${type}: field ${path} expects ${expected}, got ${what}`);
}

function isNumericSequence(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

/**
 * The rclnodejs shape of messages of one ROS 2 type. `deliver(published)` returns a fresh copy as
 * a subscriber receives it; it throws a WireTypeError naming the field for what rclnodejs refuses.
 * Converters are compiled once per type with each field's path baked in (`points[].positions`), so
 * delivering builds no strings unless it fails.
 */
export class RclnodejsWireType {
  private readonly convert: Convert;
  private readonly byName = new Map<string, MessageDefinition>();

  constructor(readonly type: string) {
    const text = DEFINITIONS[type];
    if (text === undefined)
      throw new WireTypeError(`unknown interface type ${type} (no definition: rclnodejs could not load it either)`);
    let defs: MessageDefinition[];
    try {
      defs = parse(fullDefinition(type, DEFINITIONS), { ros2: true });
    } catch (e) {
      throw new WireTypeError(`interface type ${type}: ${(e as Error).message}`);
    }
    for (const d of defs.slice(1)) if (d.name !== undefined) this.byName.set(d.name, d);
    // An empty message (a Trigger request) parses to no definition at all.
    this.convert = this.complex(defs[0] ?? { definitions: [] }, '');
  }

  deliver(published: unknown): unknown {
    return this.convert(published);
  }

  private complex(def: MessageDefinition, path: string): Convert {
    const fields = def.definitions.filter((f) => f.isConstant !== true);
    const names = fields.map((f) => f.name);
    const converters = fields.map((f) => this.field(f, path ? `${path}.${f.name}` : f.name));
    const type = this.type;
    const n = fields.length;
    return (value) => {
      if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value)))
        fail(type, path || '(message)', 'a message object', value);
      const src = (value ?? {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) out[names[i]!] = converters[i]!(src[names[i]!]);
      return out;
    };
  }

  private field(f: MessageDefinitionField, path: string): Convert {
    const type = this.type;
    if (f.isArray !== true) return this.scalar(f, path);
    const fixed = f.arrayLength;
    const bound = f.arrayUpperBound;
    const checkLength = (n: number): void => {
      if (fixed !== undefined && n !== fixed)
        throw new WireTypeError(`${type}: field ${path} is a fixed-size array of ${fixed}, got ${n} values`);
      if (bound !== undefined && n > bound)
        throw new WireTypeError(`${type}: field ${path} holds at most ${bound} values, got ${n}`);
    };
    const typed = TYPED_ARRAYS[f.type];
    if (typed) {
      return (value) => {
        if (value === undefined) return new typed(fixed ?? 0);
        if (!isNumericSequence(value)) fail(type, path, `an array of ${f.type}`, value);
        checkLength(value.length);
        const out = new typed(value.length);
        for (let i = 0; i < value.length; i++) {
          const v = value[i];
          if (typeof v !== 'number') fail(type, `${path}[${i}]`, f.type, v);
          out[i] = v;
        }
        return out;
      };
    }
    const element = this.scalar(f, `${path}[]`);
    return (value) => {
      if (value === undefined)
        return fixed === undefined ? [] : Array.from({ length: fixed }, () => element(undefined));
      if (!Array.isArray(value)) fail(type, path, `an array of ${f.type}`, value);
      checkLength(value.length);
      return value.map((v: unknown) => element(v));
    };
  }

  private scalar(f: MessageDefinitionField, path: string): Convert {
    const type = this.type;
    const dflt = f.defaultValue;
    if (f.isComplex === true) {
      const def = this.byName.get(f.type);
      if (!def) throw new WireTypeError(`interface type ${type}: no definition for ${f.type}`);
      return this.complex(def, path);
    }
    if (f.type === 'time' || f.type === 'duration') {
      // @foxglove/rosmsg turns builtin_interfaces/Time and Duration into these primitives.
      return (value) => {
        if (value !== undefined && (typeof value !== 'object' || value === null))
          fail(type, path, `a ${f.type} {sec, nanosec}`, value);
        const v = (value ?? {}) as { sec?: unknown; nanosec?: unknown };
        const sec = v.sec ?? 0;
        const nanosec = v.nanosec ?? 0;
        if (typeof sec !== 'number') fail(type, `${path}.sec`, 'int32', sec);
        if (typeof nanosec !== 'number') fail(type, `${path}.nanosec`, 'uint32', nanosec);
        return { sec, nanosec };
      };
    }
    if (NUMBERS.has(f.type)) {
      const d = typeof dflt === 'number' ? dflt : 0;
      return (value) => {
        if (value === undefined) return d;
        if (typeof value !== 'number') fail(type, path, f.type, value);
        return value;
      };
    }
    if (BIGINTS.has(f.type)) {
      const d = typeof dflt === 'bigint' ? dflt : BigInt(typeof dflt === 'number' ? dflt : 0);
      return (value) => {
        if (value === undefined) return d;
        if (typeof value === 'bigint') return value;
        if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
        return fail(type, path, `${f.type} (a BigInt or an integer)`, value);
      };
    }
    if (f.type === 'bool') {
      const d = dflt === true;
      return (value) => {
        if (value === undefined) return d;
        if (typeof value !== 'boolean') fail(type, path, 'bool', value);
        return value;
      };
    }
    if (f.type === 'string' || f.type === 'wstring') {
      const d = typeof dflt === 'string' ? dflt : '';
      return (value) => {
        if (value === undefined) return d;
        if (typeof value !== 'string') fail(type, path, 'string', value);
        return value;
      };
    }
    throw new WireTypeError(`interface type ${type}: field ${path} has unsupported type ${f.type}`);
  }
}

/** One RclnodejsWireType per type name. */
export class RclnodejsWire {
  private readonly types = new Map<string, RclnodejsWireType>();
  /** The shape of `type`; throws a WireTypeError for a type rclnodejs could not load. */
  type(type: string): RclnodejsWireType {
    let t = this.types.get(type);
    if (!t) {
      t = new RclnodejsWireType(type);
      this.types.set(type, t);
    }
    return t;
  }
}

/** The request and response message types of a service type (`std_srvs/srv/Trigger`). */
export function serviceMessageTypes(serviceType: string): { request: string; response: string } {
  return { request: `${serviceType}_Request`, response: `${serviceType}_Response` };
}
