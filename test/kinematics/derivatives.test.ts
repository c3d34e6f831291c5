import { describe, expect, it } from 'vitest';
import { SmoothedDerivatives } from '../../src/kinematics/index.js';

describe('5-step smoothed end-effector derivatives', () => {
  const dt = 1 / 30;
  it('constant velocity: speed exact after 5 differences, acceleration 0', () => {
    const d = new SmoothedDerivatives();
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      d.push(i * dt, 0.3 * i * dt, -0.4 * i * dt, 0.1);
      seen.push(d.speed);
    }
    expect(seen.slice(0, 5).every(Number.isNaN)).toBe(true);
    expect(seen[5]).toBeCloseTo(0.5, 12);
    expect(d.acc).toBeCloseTo(0, 9);
  });
  it('a cubic path gives its exact jerk and the second difference of a parabola its acceleration', () => {
    const d = new SmoothedDerivatives();
    for (let i = 0; i < 40; i++) {
      const t = i * dt;
      d.push(t, (2 * t ** 3) / 6, 0, 0); // jerk 2 m/s³
    }
    expect(d.jerk).toBeCloseTo(2, 6);
    const p = new SmoothedDerivatives();
    for (let i = 0; i < 40; i++) {
      const t = i * dt;
      p.push(t, 0, (3 * t * t) / 2, 0); // acceleration 3 m/s²
    }
    expect(p.acc).toBeCloseTo(3, 6);
    expect(p.jerk).toBeCloseTo(0, 4);
  });
  it('restarts on a time jump backwards', () => {
    const d = new SmoothedDerivatives();
    for (let i = 0; i < 10; i++) d.push(i * dt, i * dt, 0, 0);
    expect(d.speed).toBeCloseTo(1, 12);
    d.push(0, 0, 0, 0);
    expect(Number.isNaN(d.speed)).toBe(true);
  });
});
