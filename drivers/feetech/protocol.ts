/**
 * Feetech SCS/STS protocol 0 (STS series, little-endian) packet encoding
 * (hardware-facts §B1; Feetech SDK `protocol_packet_handler.py`).
 *
 *   instruction: FF FF ID LEN INSTR P1..Pn CHK     LEN = n + 2
 *   status:      FF FF ID LEN ERR   P1..Pn CHK
 *   CHK = ~(ID + LEN + INSTR/ERR + ΣP) & 0xFF
 */

export const HEADER_BYTE = 0xff;
export const BROADCAST_ID = 0xfe;
/** Largest unicast id. */
export const MAX_SERVO_ID = 0xfd;
/** Bytes around the parameters: FF FF ID LEN CODE … CHK. */
export const PACKET_OVERHEAD = 6;
/** Largest parameter count we accept (LEN is one byte and counts CODE and CHK). */
export const MAX_PARAMS = 0xff - 2;

export const Instruction = {
  PING: 0x01,
  READ: 0x02,
  WRITE: 0x03,
  REG_WRITE: 0x04,
  ACTION: 0x05,
  SYNC_READ: 0x82,
  SYNC_WRITE: 0x83,
} as const;
export type InstructionName = keyof typeof Instruction;
export type InstructionCode = (typeof Instruction)[InstructionName];

/**
 * A framed packet. For an instruction packet `code` is the instruction; for a status packet it is
 * the servo's error byte. `params` is a fresh copy owned by the receiver.
 */
export interface Packet {
  readonly id: number;
  readonly code: number;
  readonly params: Uint8Array;
}

/** Checksum over bytes[start, end): ~(sum) & 0xFF. */
export function checksum(bytes: ArrayLike<number>, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += bytes[i] ?? 0;
  return ~sum & 0xff;
}

function checkByte(value: number, what: string): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xff) {
    throw new RangeError(`Feetech packet: ${what} must be a byte 0..255, got ${value}`);
  }
}

/**
 * Encode one packet (instruction or status). Throws RangeError on out-of-range arguments: these are
 * programming errors of the caller (the bus validates user input before calling).
 */
export function encodePacket(id: number, code: number, params: ArrayLike<number> = []): Uint8Array {
  checkByte(id, 'id');
  checkByte(code, 'instruction/error');
  if (id === HEADER_BYTE) throw new RangeError('Feetech packet: id 0xFF is reserved for the header');
  if (params.length > MAX_PARAMS) throw new RangeError(`Feetech packet: ${params.length} params exceed ${MAX_PARAMS}`);
  const out = new Uint8Array(params.length + PACKET_OVERHEAD);
  out[0] = HEADER_BYTE;
  out[1] = HEADER_BYTE;
  out[2] = id;
  out[3] = params.length + 2;
  out[4] = code;
  for (let i = 0; i < params.length; i++) {
    const p = params[i] ?? 0;
    checkByte(p, `param ${i}`);
    out[5 + i] = p;
  }
  out[out.length - 1] = checksum(out, 2, out.length - 1);
  return out;
}

export function encodePing(id: number): Uint8Array {
  return encodePacket(id, Instruction.PING);
}

export function encodeRead(id: number, address: number, length: number): Uint8Array {
  return encodePacket(id, Instruction.READ, [address, length]);
}

export function encodeWrite(id: number, address: number, data: ArrayLike<number>): Uint8Array {
  return encodePacket(id, Instruction.WRITE, [address, ...Array.from(data)]);
}

export function encodeRegWrite(id: number, address: number, data: ArrayLike<number>): Uint8Array {
  return encodePacket(id, Instruction.REG_WRITE, [address, ...Array.from(data)]);
}

export function encodeAction(id: number = BROADCAST_ID): Uint8Array {
  return encodePacket(id, Instruction.ACTION);
}

/** SYNC_READ to broadcast: params `addr, len, id1..idN`; each servo answers with its own status. */
export function encodeSyncRead(address: number, length: number, ids: readonly number[]): Uint8Array {
  return encodePacket(BROADCAST_ID, Instruction.SYNC_READ, [address, length, ...ids]);
}

/** SYNC_WRITE to broadcast: params `addr, len, {id, data[len]}×N`; no replies. */
export function encodeSyncWrite(
  address: number,
  length: number,
  data: ReadonlyMap<number, ArrayLike<number>>,
): Uint8Array {
  const params: number[] = [address, length];
  for (const [id, bytes] of data) {
    if (bytes.length !== length) {
      throw new RangeError(`Feetech SYNC_WRITE: servo ${id} has ${bytes.length} data bytes, expected ${length}`);
    }
    params.push(id, ...Array.from(bytes));
  }
  return encodePacket(BROADCAST_ID, Instruction.SYNC_WRITE, params);
}

/** A status packet (what a servo sends back). Used by the emulator and tests. */
export function encodeStatus(id: number, errorByte: number, data: ArrayLike<number> = []): Uint8Array {
  return encodePacket(id, errorByte, data);
}

/** Status error byte bits (hardware-facts §B1). Bits 4, 6, 7 are undocumented. */
export const ERROR_BITS = {
  voltage: 0x01,
  angle: 0x02,
  overheat: 0x04,
  overcurrent: 0x08,
  overload: 0x20,
} as const;
export type ServoErrorBitName = keyof typeof ERROR_BITS;

/** Names of the set bits; undocumented bits come out as `bit4`, `bit6`, `bit7`. */
export function decodeErrorBits(errorByte: number): string[] {
  const names: string[] = [];
  let known = 0;
  for (const [name, mask] of Object.entries(ERROR_BITS)) {
    known |= mask;
    if (errorByte & mask) names.push(name);
  }
  for (let bit = 0; bit < 8; bit++) {
    const mask = 1 << bit;
    if (errorByte & mask && !(known & mask)) names.push(`bit${bit}`);
  }
  return names;
}

/** Little-endian helpers (STS series: SDK `SCS_END = 0`). */
export function readU16LE(bytes: Uint8Array, offset: number): number {
  return (bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8);
}
export function writeU16LE(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = value & 0xff;
  bytes[offset + 1] = (value >> 8) & 0xff;
}
