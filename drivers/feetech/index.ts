/**
 * Feetech STS3215 driver: protocol, framer, register table, bus over serialport, and the servo
 * emulator (in-process via serialport's mock binding, or on a pty/serial port).
 */
export { decodeSignMagnitude, encodeSignMagnitude, maxMagnitude } from './sign-magnitude.js';
export {
  BROADCAST_ID,
  ERROR_BITS,
  HEADER_BYTE,
  Instruction,
  MAX_PARAMS,
  MAX_SERVO_ID,
  PACKET_OVERHEAD,
  checksum,
  decodeErrorBits,
  encodeAction,
  encodePacket,
  encodePing,
  encodeRead,
  encodeRegWrite,
  encodeStatus,
  encodeSyncRead,
  encodeSyncWrite,
  encodeWrite,
  readU16LE,
  writeU16LE,
  type InstructionCode,
  type InstructionName,
  type Packet,
  type ServoErrorBitName,
} from './protocol.js';
export {
  FULL_STATE_BLOCK,
  REGISTER_NAMES,
  REGISTER_SPACE,
  STS3215_REGISTERS,
  decodeFullState,
  decodeRegister,
  encodeRegister,
  registerByName,
  type RegisterName,
  type RegisterSpec,
  type ServoState,
} from './registers.js';
export { PacketFramer, type FramerCounters } from './framer.js';
export { FEETECH_BAUD_RATE, openSerialLink, type ByteLink, type SerialLinkOptions } from './link.js';
export { FeetechBus, type BusCounters, type FeetechBusOptions, type PingReply } from './bus.js';
export { EmulatedServo, STS3215_DEFAULTS, type PresentValues } from './emulator/servo.js';
export {
  FeetechEmulator,
  type EmulatorCounters,
  type FeetechEmulatorOptions,
  type PhysicsHook,
  type WriteListener,
} from './emulator/emulator.js';
export { createEmulatorMockBinding, type EmulatorMockBinding } from './emulator/mock-binding.js';
export { serveEmulatorOnLink, serveEmulatorOnPort } from './emulator/serve.js';
export { goalTrackingPhysics } from './emulator/physics.js';
export { PARENT_POLL_S, openPtyPair, type PtyPair, type PtyPairOptions } from './socat-pty.js';
