/**
 * STS3215 control table as data (hardware-facts §B2; addresses/sizes from LeRobot
 * `motors/feetech/tables.py` STS_SMS_SERIES_CONTROL_TABLE; sign bits from LeRobot
 * STS_SMS_SERIES_ENCODINGS_TABLE plus Present_Load bit 10). Units marked "unconfirmed" come from
 * third-party transcriptions, not the Feetech PDF.
 */
import { decodeSignMagnitude, encodeSignMagnitude } from './sign-magnitude.js';

export interface RegisterSpec {
  readonly address: number;
  readonly size: 1 | 2;
  /** 'r' registers are refused by the emulator's WRITE and by `writeRegister`. */
  readonly access: 'r' | 'rw';
  /** EEPROM (0..39) persists across power cycles when Lock = 0; RAM (40..) does not. */
  readonly area: 'eeprom' | 'ram';
  /** Sign-magnitude sign bit, if the register is signed. */
  readonly signBit?: number;
  readonly unit: string;
}

const eeprom = (
  address: number,
  size: 1 | 2,
  unit: string,
  access: 'r' | 'rw' = 'rw',
  signBit?: number,
): RegisterSpec =>
  signBit === undefined
    ? { address, size, access, area: 'eeprom', unit }
    : { address, size, access, area: 'eeprom', unit, signBit };
const ram = (address: number, size: 1 | 2, unit: string, access: 'r' | 'rw' = 'rw', signBit?: number): RegisterSpec =>
  signBit === undefined
    ? { address, size, access, area: 'ram', unit }
    : { address, size, access, area: 'ram', unit, signBit };

export const STS3215_REGISTERS = {
  Firmware_Major_Version: eeprom(0, 1, '', 'r'),
  Firmware_Minor_Version: eeprom(1, 1, '', 'r'),
  Model_Number: eeprom(3, 2, 'STS3215 = 777', 'r'),
  ID: eeprom(5, 1, ''),
  Baud_Rate: eeprom(6, 1, 'code 0..7 (0 = 1 Mbps)'),
  Return_Delay_Time: eeprom(7, 1, '2 µs'),
  Response_Status_Level: eeprom(8, 1, '0 = reply to READ/PING only, 1 = reply to all'),
  Min_Position_Limit: eeprom(9, 2, 'steps'),
  Max_Position_Limit: eeprom(11, 2, 'steps'),
  Max_Temperature_Limit: eeprom(13, 1, '°C'),
  Max_Voltage_Limit: eeprom(14, 1, '0.1 V'),
  Min_Voltage_Limit: eeprom(15, 1, '0.1 V'),
  Max_Torque_Limit: eeprom(16, 2, '0.1 %'),
  Phase: eeprom(18, 1, 'bit flags'),
  Unloading_Condition: eeprom(19, 1, 'error bitmask'),
  LED_Alarm_Condition: eeprom(20, 1, 'error bitmask'),
  P_Coefficient: eeprom(21, 1, ''),
  D_Coefficient: eeprom(22, 1, ''),
  I_Coefficient: eeprom(23, 1, ''),
  Minimum_Startup_Force: eeprom(24, 2, '0.1 % (unconfirmed)'),
  CW_Dead_Zone: eeprom(26, 1, 'steps'),
  CCW_Dead_Zone: eeprom(27, 1, 'steps'),
  Protection_Current: eeprom(28, 2, '6.5 mA'),
  Angular_Resolution: eeprom(30, 1, ''),
  Homing_Offset: eeprom(31, 2, 'steps', 'rw', 11),
  Operating_Mode: eeprom(33, 1, '0 position, 1 velocity, 2 PWM, 3 step'),
  Protective_Torque: eeprom(34, 1, '% (unconfirmed)'),
  Protection_Time: eeprom(35, 1, '10 ms (unconfirmed)'),
  Overload_Torque: eeprom(36, 1, '% (unconfirmed)'),
  Velocity_P_Coefficient: eeprom(37, 1, ''),
  Over_Current_Protection_Time: eeprom(38, 1, '10 ms (unconfirmed)'),
  Velocity_I_Coefficient: eeprom(39, 1, ''),
  Torque_Enable: ram(40, 1, '0/1'),
  Acceleration: ram(41, 1, '100 steps/s²'),
  Goal_Position: ram(42, 2, 'steps', 'rw', 15),
  Goal_Time: ram(44, 2, 'ms (unconfirmed)'),
  Goal_Velocity: ram(46, 2, 'steps/s', 'rw', 15),
  Torque_Limit: ram(48, 2, '0.1 %'),
  Lock: ram(55, 1, '1 = EEPROM writes not persisted'),
  Present_Position: ram(56, 2, 'steps', 'r', 15),
  Present_Velocity: ram(58, 2, 'steps/s', 'r', 15),
  Present_Load: ram(60, 2, '0.1 %', 'r', 10),
  Present_Voltage: ram(62, 1, '0.1 V', 'r'),
  Present_Temperature: ram(63, 1, '°C', 'r'),
  Status: ram(65, 1, 'error bitmask (ERR layout)', 'r'),
  Moving: ram(66, 1, '1 = moving', 'r'),
  // Sign encoding of Present_Current is unconfirmed; LeRobot applies none, so neither do we.
  Present_Current: ram(69, 2, '6.5 mA', 'r'),
  Maximum_Acceleration: ram(85, 1, '100 steps/s²'),
} as const satisfies Record<string, RegisterSpec>;

export type RegisterName = keyof typeof STS3215_REGISTERS;
export const REGISTER_NAMES = Object.keys(STS3215_REGISTERS) as RegisterName[];

/** Size of the emulated register image (covers every address in the table). */
export const REGISTER_SPACE = 128;

/**
 * The contiguous block of everything a servo reports, read with one SYNC_READ:
 * Present_Position (56) … Present_Current (69..70). Addresses 64, 67, 68 are reserved.
 */
export const FULL_STATE_BLOCK = { address: 56, length: 15 } as const;

export function registerByName(name: string): RegisterSpec | undefined {
  return Object.hasOwn(STS3215_REGISTERS, name) ? STS3215_REGISTERS[name as RegisterName] : undefined;
}

/** Decode `spec` from `bytes` at `offset` (little-endian, sign-magnitude where signed). */
export function decodeRegister(spec: RegisterSpec, bytes: Uint8Array, offset = 0): number {
  const raw = spec.size === 1 ? (bytes[offset] ?? 0) : (bytes[offset] ?? 0) | ((bytes[offset + 1] ?? 0) << 8);
  return spec.signBit === undefined ? raw : decodeSignMagnitude(raw, spec.signBit);
}

/**
 * Encode a value for `spec` into `size` bytes. Returns undefined when the value does not fit
 * (non-integer, negative for an unsigned register, or magnitude beyond the field).
 */
export function encodeRegister(spec: RegisterSpec, value: number): Uint8Array | undefined {
  let raw: number | undefined;
  if (spec.signBit !== undefined) raw = encodeSignMagnitude(value, spec.signBit);
  else if (Number.isInteger(value) && value >= 0 && value < 1 << (8 * spec.size)) raw = value;
  if (raw === undefined) return undefined;
  return spec.size === 1 ? Uint8Array.of(raw) : Uint8Array.of(raw & 0xff, (raw >> 8) & 0xff);
}

/** Decoded full-state block of one servo, in register units (see STS3215_REGISTERS). */
export interface ServoState {
  readonly id: number;
  /** Present_Position, steps (4096/rev), signed. */
  readonly position: number;
  /** Present_Velocity, steps/s, signed. */
  readonly velocity: number;
  /** Present_Load, 0.1 % of max torque, signed (sign bit 10). */
  readonly load: number;
  /** Present_Voltage, 0.1 V. */
  readonly voltage: number;
  /** Present_Temperature, °C. */
  readonly temperature: number;
  /** Status register (ERR bit layout). */
  readonly status: number;
  readonly moving: boolean;
  /** Present_Current, 6.5 mA per unit, raw (sign unconfirmed). */
  readonly current: number;
  /** ERR byte of the status packet that carried this state. */
  readonly errorByte: number;
}

const R = STS3215_REGISTERS;
const base = FULL_STATE_BLOCK.address;

/** Decode a FULL_STATE_BLOCK read (15 bytes starting at address 56). */
export function decodeFullState(id: number, errorByte: number, block: Uint8Array): ServoState {
  return {
    id,
    position: decodeRegister(R.Present_Position, block, R.Present_Position.address - base),
    velocity: decodeRegister(R.Present_Velocity, block, R.Present_Velocity.address - base),
    load: decodeRegister(R.Present_Load, block, R.Present_Load.address - base),
    voltage: decodeRegister(R.Present_Voltage, block, R.Present_Voltage.address - base),
    temperature: decodeRegister(R.Present_Temperature, block, R.Present_Temperature.address - base),
    status: decodeRegister(R.Status, block, R.Status.address - base),
    moving: decodeRegister(R.Moving, block, R.Moving.address - base) !== 0,
    current: decodeRegister(R.Present_Current, block, R.Present_Current.address - base),
    errorByte,
  };
}
