/**
 * Feetech STS registers store signed values as sign-magnitude, not two's complement: the bit at
 * `signBit` is the direction and the bits below it the magnitude (LeRobot `encoding_utils.py`).
 */

/** Largest magnitude representable below `signBit`. */
export function maxMagnitude(signBit: number): number {
  return (1 << signBit) - 1;
}

/**
 * Encode `value` (an integer) into sign-magnitude with the sign at `signBit`. Returns undefined
 * when the magnitude does not fit, so callers turn it into a typed error with context.
 */
export function encodeSignMagnitude(value: number, signBit: number): number | undefined {
  if (!Number.isInteger(value)) return undefined;
  const magnitude = Math.abs(value);
  if (magnitude > maxMagnitude(signBit)) return undefined;
  return value < 0 ? (1 << signBit) | magnitude : magnitude;
}

/** Decode a raw register value; bits above `signBit` are ignored. Never yields -0. */
export function decodeSignMagnitude(raw: number, signBit: number): number {
  const magnitude = raw & maxMagnitude(signBit);
  if (magnitude === 0) return 0;
  return (raw >> signBit) & 1 ? -magnitude : magnitude;
}
