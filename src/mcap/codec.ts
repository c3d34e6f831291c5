/**
 * CDR codecs for ROS 2 messages, built from `ros2msg` schema texts (the definitions a bag carries).
 * Service and action schemas contain `---` separators, which @foxglove/rosmsg does not accept; they
 * are split here. rosbag2 records service events (`pkg/srv/Name_Event`) with the plain .srv text as
 * the schema while the payload is the full event struct (`service_msgs/ServiceEventInfo info`,
 * `Name_Request[<=1] request`, `Name_Response[<=1] response`), so that struct is rebuilt around it.
 */
import { parse } from '@foxglove/rosmsg';
import { MessageReader, MessageWriter } from '@foxglove/rosmsg2-serialization';
import type { MessageDefinition } from '@foxglove/message-definition';

const SEPARATOR = '='.repeat(80);

// service_msgs/msg/ServiceEventInfo (ROS 2 Iron and later).
const SERVICE_EVENT_INFO = `uint8 REQUEST_SENT = 0
uint8 REQUEST_RECEIVED = 1
uint8 RESPONSE_SENT = 2
uint8 RESPONSE_RECEIVED = 3
uint8 event_type
builtin_interfaces/Time stamp
char[16] client_gid
int64 sequence_number
`;

export interface Ros2Codec {
  readonly schemaName: string;
  readonly definitions: MessageDefinition[];
  decode(data: Uint8Array): Record<string, unknown>;
  encode(message: unknown): Uint8Array;
}

/** Split the first block (before any `MSG:` dependency block) at lines that are exactly `---`. */
function splitSections(text: string): { sections: string[]; dependencies: string } {
  const lines = text.split('\n');
  let depStart = lines.findIndex((l) => /^={10,}\s*$/.test(l));
  if (depStart < 0) depStart = lines.length;
  const sections: string[][] = [[]];
  for (const line of lines.slice(0, depStart)) {
    if (line.trim() === '---') sections.push([]);
    else sections[sections.length - 1]!.push(line);
  }
  return { sections: sections.map((s) => s.join('\n')), dependencies: lines.slice(depStart).join('\n') };
}

function block(type: string, text: string): string {
  return `${SEPARATOR}\nMSG: ${type}\n${text}\n`;
}

const SECTION_BY_SUFFIX: ReadonlyArray<[RegExp, number]> = [
  [/_Request$/, 0],
  [/_Goal$/, 0],
  [/_Response$/, 1],
  [/_Result$/, 1],
  [/_Feedback$/, 2],
];

/** The message-definition text to parse for a schema (rewriting service/action texts). */
export function normalizeSchemaText(schemaName: string, text: string): string {
  const { sections, dependencies } = splitSections(text);
  if (sections.length === 1) return text;
  const [pkg, kind, name] = schemaName.split('/');
  if (name !== undefined && kind === 'srv' && name.endsWith('_Event')) {
    const base = name.slice(0, -'_Event'.length);
    const root = `service_msgs/ServiceEventInfo info\n${pkg}/${base}_Request[<=1] request\n${pkg}/${base}_Response[<=1] response\n`;
    return (
      root +
      block('service_msgs/ServiceEventInfo', SERVICE_EVENT_INFO) +
      block(`${pkg}/${base}_Request`, sections[0] ?? '') +
      block(`${pkg}/${base}_Response`, sections[1] ?? '') +
      dependencies
    );
  }
  const pick = SECTION_BY_SUFFIX.find(([re]) => re.test(name ?? ''))?.[1] ?? 0;
  return `${sections[pick] ?? ''}\n${dependencies}`;
}

/** Build a codec from a schema; throws an Error naming the schema when the text does not parse. */
export function createRos2Codec(schemaName: string, schemaText: string): Ros2Codec {
  let definitions: MessageDefinition[];
  try {
    definitions = parse(normalizeSchemaText(schemaName, schemaText), { ros2: true });
  } catch (e) {
    throw new Error(`schema '${schemaName}': ${(e as Error).message}`);
  }
  const reader = new MessageReader(definitions);
  const writer = new MessageWriter(definitions);
  return {
    schemaName,
    definitions,
    decode: (data) => reader.readMessage<Record<string, unknown>>(data),
    encode: (message) => writer.writeMessage(message),
  };
}

/** Codecs keyed by schema name and text, so each distinct definition is parsed once. */
export class Ros2CodecCache {
  private readonly codecs = new Map<string, Ros2Codec>();
  get(schemaName: string, schemaText: string): Ros2Codec {
    const key = `${schemaName}\u0000${schemaText}`;
    let codec = this.codecs.get(key);
    if (!codec) {
      codec = createRos2Codec(schemaName, schemaText);
      this.codecs.set(key, codec);
    }
    return codec;
  }
}
