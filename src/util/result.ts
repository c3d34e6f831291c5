/**
 * The one shape for "it worked, or here is why not": `Result` carries a value or an error;
 * `Verdict` is a yes, or a no with the reason (a refused command, a rejected message).
 */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export const err = <E>(error: E): { ok: false; error: E } => ({ ok: false, error });

export type Verdict = { ok: true } | { ok: false; reason: string };
