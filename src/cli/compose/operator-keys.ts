/**
 * Operator keys on a TTY (raw mode): e e-stop, x reset the keyboard e-stop, r release, s / f label success / failure and end
 * the episode, n new episode, q (or Ctrl-C) quit — the arm is held first.
 */
export type OperatorAction = 'estop' | 'estop-reset' | 'release' | 'success' | 'failure' | 'new-episode' | 'quit';

const KEYS: Readonly<Record<string, OperatorAction>> = {
  e: 'estop',
  E: 'estop',
  ' ': 'estop',
  x: 'estop-reset',
  X: 'estop-reset',
  r: 'release',
  R: 'release',
  s: 'success',
  S: 'success',
  f: 'failure',
  F: 'failure',
  n: 'new-episode',
  N: 'new-episode',
  q: 'quit',
  Q: 'quit',
  '\u0003': 'quit',
};

export const OPERATOR_KEYS_HELP =
  'keys: e/space e-stop · x reset the keyboard e-stop · r release · s success (ends episode) · f failure (ends episode) · n new episode · q quit';

/** The actions in a chunk of key bytes, in order (unknown keys ignored). */
export function keysToActions(chunk: string): OperatorAction[] {
  const out: OperatorAction[] = [];
  for (const ch of chunk) {
    const a = KEYS[ch];
    if (a) out.push(a);
  }
  return out;
}

export interface KeyInput {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** Listen for keys on `input` when it is a TTY; returns a detach function (undefined when not a TTY). */
export function attachOperatorKeys(input: KeyInput, act: (a: OperatorAction) => void): (() => void) | undefined {
  if (!input.isTTY || !input.setRawMode) return undefined;
  input.setRawMode(true);
  const onData = (chunk: Buffer | string): void => {
    for (const a of keysToActions(chunk.toString())) act(a);
  };
  input.on('data', onData);
  input.resume();
  return () => {
    input.off('data', onData);
    input.setRawMode?.(false);
    input.pause();
  };
}
