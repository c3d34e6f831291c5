/**
 * `armguard check` validates spec, library and calibration files. Each file kind registers a
 * checker here; the first whose `accepts` matches the path handles it.
 */
export interface FileChecker {
  kind: string;
  accepts(path: string, text: string): boolean;
  /** Returns human-readable problems, each naming file, line and field; empty when valid. */
  check(path: string, text: string): string[] | Promise<string[]>;
  /** One-line summary of a valid file. */
  describe?(path: string, text: string): string;
}

export const fileCheckers: FileChecker[] = [];
