/** Errors with context: where (file/field/line) and what was expected. */
export class ArmguardError extends Error {
  override readonly name: string = 'ArmguardError';
  constructor(
    message: string,
    readonly context: Readonly<Record<string, string | number | undefined>> = {},
  ) {
    super(message);
  }
}

/** A problem in an input file or request, positioned so a person can find and fix it. */
export class InputError extends ArmguardError {
  override readonly name = 'InputError';
  constructor(
    readonly where: { file?: string; line?: number; column?: number; field?: string },
    readonly reason: string,
  ) {
    super(formatWhere(where) + reason, {
      file: where.file,
      line: where.line,
      column: where.column,
      field: where.field,
    });
  }
}

export function formatWhere(where: { file?: string; line?: number; column?: number; field?: string }): string {
  let s = where.file ?? '';
  if (where.line !== undefined)
    s += `${s ? ':' : 'line '}${where.line}${where.column !== undefined ? `:${where.column}` : ''}`;
  if (where.field !== undefined) s += `${s ? ' ' : ''}field '${where.field}'`;
  return s ? `${s}: ` : '';
}

export function assertNever(value: never, what = 'value'): never {
  throw new ArmguardError(`unexpected ${what}: ${JSON.stringify(value)}`);
}
