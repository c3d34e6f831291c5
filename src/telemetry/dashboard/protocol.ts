/** Messages between the dashboard page and the dashboard server (WebSocket, JSON). */
import type { Result } from '../../util/result.js';

export type PageToServer =
  | { type: 'login'; username: string; password: string }
  | { type: 'logout' }
  | { type: 'estop'; robot: string }
  /** Reset one latched e-stop, naming who pressed it (its `by` or press id in the gate state's `estop.pressed`). Needs an operator login. */
  | { type: 'estop-reset'; robot: string; pressedBy: string }
  | { type: 'release'; robot: string }
  | { type: 'label'; robot: string; success: boolean };

export type ServerToPage =
  | { type: 'telemetry'; topic: string; payload: unknown }
  | { type: 'login-result'; ok: boolean; username?: string; reason?: string }
  /**
   * For 'estop' and 'estop-reset', ok is true only once the robot's gate state confirms it
   * (`confirmed: true`, with the gate `state` and, for an e-stop, who it is latched as: `pressedBy`).
   */
  | {
      type: 'command-result';
      command: string;
      robot: string;
      ok: boolean;
      reason?: string;
      confirmed?: boolean;
      state?: string;
      pressedBy?: string;
    };

/** Validate a message from the page; never throws. */
export function parsePageMessage(text: string): Result<PageToServer, string> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, error: 'not JSON' };
  }
  if (typeof v !== 'object' || v === null) return { ok: false, error: 'not an object' };
  const o = v as Record<string, unknown>;
  const robotOk = typeof o.robot === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(o.robot);
  switch (o.type) {
    case 'login':
      return typeof o.username === 'string' &&
        typeof o.password === 'string' &&
        o.username.length <= 128 &&
        o.password.length <= 1024
        ? { ok: true, value: { type: 'login', username: o.username, password: o.password } }
        : { ok: false, error: 'login needs username and password strings' };
    case 'logout':
      return { ok: true, value: { type: 'logout' } };
    case 'estop':
    case 'release':
      return robotOk
        ? { ok: true, value: { type: o.type, robot: o.robot as string } }
        : { ok: false, error: `${o.type} needs a robot id` };
    case 'estop-reset':
      return robotOk && typeof o.pressedBy === 'string' && o.pressedBy.length > 0 && o.pressedBy.length <= 1000
        ? { ok: true, value: { type: 'estop-reset', robot: o.robot as string, pressedBy: o.pressedBy } }
        : { ok: false, error: 'estop-reset needs a robot id and pressedBy (who pressed the e-stop)' };
    case 'label':
      return robotOk && typeof o.success === 'boolean'
        ? { ok: true, value: { type: 'label', robot: o.robot as string, success: o.success } }
        : { ok: false, error: 'label needs a robot id and success true/false' };
    default:
      return { ok: false, error: `unknown message type ${JSON.stringify(o.type)}` };
  }
}
