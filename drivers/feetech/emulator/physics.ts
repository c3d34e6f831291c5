/**
 * A simple kinematic stand-in for a servo's motor (named as such: not a dynamics model). While
 * torque is enabled the present position moves toward Goal_Position at up to `maxSpeed` steps/s;
 * velocity and Moving follow. For demos and tests; real simulators install their own PhysicsHook.
 */
import type { Clock } from '../../../src/util/clock.js';
import type { PhysicsHook } from './emulator.js';
import type { EmulatedServo } from './servo.js';

export function goalTrackingPhysics(clock: Clock, maxSpeed = 3400): PhysicsHook {
  const last = new Map<EmulatedServo, number>();
  return (servo) => {
    const now = clock.now();
    const dt = Math.max(0, now - (last.get(servo) ?? now));
    last.set(servo, now);
    const present = servo.getRegister('Present_Position');
    if (!servo.torqueEnabled || dt === 0) {
      servo.setPresent({ velocity: 0, moving: false });
      return;
    }
    const error = servo.goalPosition - present;
    const step = Math.sign(error) * Math.min(Math.abs(error), maxSpeed * dt);
    const next = Math.round(present + step);
    servo.setPresent({ position: next, velocity: (next - present) / dt, moving: next !== servo.goalPosition });
  };
}
