/**
 * One emulated STS3215: a register image with the STS3215 control table, access rules, EEPROM
 * persistence (Lock), error bits and a physics-facing API for simulators.
 */
import {
  REGISTER_SPACE,
  type RegisterName,
  type RegisterSpec,
  STS3215_REGISTERS,
  decodeRegister,
  encodeRegister,
} from '../registers.js';
import { ERROR_BITS } from '../protocol.js';

const R = STS3215_REGISTERS;
/** First RAM address; below it is EEPROM. */
const RAM_START = R.Torque_Enable.address;

/**
 * Emulator power-up values. Model number, ids, limits and 1 Mbps follow hardware-facts §B; the
 * rest are plausible defaults, not Feetech-confirmed. Return_Delay_Time is 0 as LeRobot configures.
 */
export const STS3215_DEFAULTS: Partial<Record<RegisterName, number>> = {
  Firmware_Major_Version: 3,
  Firmware_Minor_Version: 10,
  Model_Number: 777,
  Baud_Rate: 0,
  Return_Delay_Time: 0,
  Response_Status_Level: 1,
  Min_Position_Limit: 0,
  Max_Position_Limit: 4095,
  Max_Temperature_Limit: 70,
  Max_Voltage_Limit: 140,
  Min_Voltage_Limit: 40,
  Max_Torque_Limit: 1000,
  Unloading_Condition: 44,
  LED_Alarm_Condition: 47,
  P_Coefficient: 32,
  D_Coefficient: 32,
  I_Coefficient: 0,
  Protection_Current: 500,
  Angular_Resolution: 1,
  Protective_Torque: 20,
  Protection_Time: 200,
  Overload_Torque: 80,
  Torque_Limit: 1000,
  Lock: 1,
  Goal_Position: 2048,
  Present_Position: 2048,
  Present_Voltage: 74,
  Present_Temperature: 25,
  Maximum_Acceleration: 254,
};

/** Values a simulator drives from outside (register units; see STS3215_REGISTERS). */
export interface PresentValues {
  position?: number;
  velocity?: number;
  load?: number;
  voltage?: number;
  temperature?: number;
  current?: number;
  moving?: boolean;
}

const READ_ONLY = new Set<number>();
for (const spec of Object.values(R) as RegisterSpec[]) {
  if (spec.access === 'r') for (let i = 0; i < spec.size; i++) READ_ONLY.add(spec.address + i);
}

export class EmulatedServo {
  /** The live register image. */
  private readonly mem = new Uint8Array(REGISTER_SPACE);
  /** EEPROM contents that survive `powerCycle()`. */
  private readonly persisted = new Uint8Array(RAM_START);
  /** Error bits injected by a test or simulator (ERR layout), OR-ed with computed ones. */
  injectedErrors = 0;
  /** false: the servo ignores everything (stopped answering, unplugged). */
  responsive = true;
  /** Corrupt the checksum of this many upcoming replies. */
  corruptReplies = 0;
  private staged: { address: number; data: Uint8Array } | undefined;

  constructor(id: number, initial: Partial<Record<RegisterName, number>> = {}) {
    for (const [name, v] of Object.entries({ ...STS3215_DEFAULTS, ...initial, ID: id })) {
      this.setRegister(name as RegisterName, v);
    }
    this.persisted.set(this.mem.subarray(0, RAM_START));
  }

  get id(): number {
    return this.mem[R.ID.address] ?? 0;
  }

  /** Decoded register value. */
  getRegister(name: RegisterName): number {
    const spec: RegisterSpec = R[name];
    return decodeRegister(spec, this.mem, spec.address);
  }

  /** Set a register directly (simulator/test side: ignores access rules). Throws if it does not fit. */
  setRegister(name: RegisterName, value: number): void {
    const spec: RegisterSpec = R[name];
    const bytes = encodeRegister(spec, value);
    if (!bytes) throw new RangeError(`emulated servo: ${name} = ${value} does not fit`);
    this.mem.set(bytes, spec.address);
  }

  get goalPosition(): number {
    return this.getRegister('Goal_Position');
  }
  get torqueEnabled(): boolean {
    return this.getRegister('Torque_Enable') !== 0;
  }

  /**
   * Physics hook side: drive what the servo reports. Values are rounded and saturated to each
   * register's range (as a sensor saturates) so a simulator can never crash the emulator.
   */
  setPresent(v: PresentValues): void {
    if (v.position !== undefined) this.setSaturated('Present_Position', v.position);
    if (v.velocity !== undefined) this.setSaturated('Present_Velocity', v.velocity);
    if (v.load !== undefined) this.setSaturated('Present_Load', v.load);
    if (v.voltage !== undefined) this.setSaturated('Present_Voltage', v.voltage);
    if (v.temperature !== undefined) this.setSaturated('Present_Temperature', v.temperature);
    if (v.current !== undefined) this.setSaturated('Present_Current', v.current);
    if (v.moving !== undefined) this.setRegister('Moving', v.moving ? 1 : 0);
  }

  private setSaturated(name: RegisterName, value: number): void {
    const spec: RegisterSpec = R[name];
    const hi = spec.signBit !== undefined ? (1 << spec.signBit) - 1 : (1 << (8 * spec.size)) - 1;
    const lo = spec.signBit !== undefined ? -hi : 0;
    const v = Number.isFinite(value) ? Math.round(value) : 0;
    this.setRegister(name, Math.min(hi, Math.max(lo, v)));
  }

  /**
   * Error byte as the servo reports it: injected bits, plus voltage outside
   * [Min_Voltage_Limit, Max_Voltage_Limit] and temperature above Max_Temperature_Limit.
   */
  get errorByte(): number {
    let e = this.injectedErrors & 0xff;
    const v = this.getRegister('Present_Voltage');
    if (v < this.getRegister('Min_Voltage_Limit') || v > this.getRegister('Max_Voltage_Limit')) e |= ERROR_BITS.voltage;
    if (this.getRegister('Present_Temperature') > this.getRegister('Max_Temperature_Limit')) e |= ERROR_BITS.overheat;
    return e;
  }

  /** Protocol READ: bytes [address, address+length), Status reflecting current errors. */
  readBytes(address: number, length: number): Uint8Array {
    this.mem[R.Status.address] = this.errorByte;
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.mem[address + i] ?? 0;
    return out;
  }

  /** Protocol WRITE: read-only and out-of-range bytes are ignored, as the servo does. */
  writeBytes(address: number, data: Uint8Array): void {
    for (let i = 0; i < data.length; i++) {
      const a = address + i;
      if (a >= REGISTER_SPACE || READ_ONLY.has(a)) continue;
      // Ids 254 (broadcast) and 255 (header byte) cannot be a servo's own id.
      if (a === R.ID.address && (data[i] ?? 0) > 0xfd) continue;
      this.mem[a] = data[i] ?? 0;
    }
    // With Lock = 0 EEPROM writes are saved; with Lock = 1 they last until power-off.
    if (address < RAM_START && this.getRegister('Lock') === 0) this.persisted.set(this.mem.subarray(0, RAM_START));
  }

  stage(address: number, data: Uint8Array): void {
    this.staged = { address, data: data.slice() };
  }
  /** ACTION: apply a staged REG_WRITE. */
  applyStaged(): void {
    if (this.staged) this.writeBytes(this.staged.address, this.staged.data);
    this.staged = undefined;
  }

  /** Power cycle: EEPROM from the persisted copy, RAM to power-up defaults, Max_Torque → Torque_Limit. */
  powerCycle(): void {
    const eepromImage = this.persisted.slice();
    this.mem.fill(0);
    for (const [name, v] of Object.entries(STS3215_DEFAULTS)) {
      if ((R[name as RegisterName] as RegisterSpec).area === 'ram') this.setRegister(name as RegisterName, v);
    }
    this.mem.set(eepromImage, 0);
    this.setRegister('Torque_Limit', this.getRegister('Max_Torque_Limit'));
    this.staged = undefined;
  }
}
