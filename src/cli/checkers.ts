/**
 * `armguard check` validates spec, library and calibration files: one FileChecker per file kind,
 * listed in commands/check.ts; the first whose `accepts` matches the path handles it.
 */
export interface FileChecker {
  kind: string;
  accepts(path: string, text: string): boolean;
  /** Returns human-readable problems, each naming file, line and field; empty when valid. */
  check(path: string, text: string): string[] | Promise<string[]>;
  /** One-line summary of a valid file. */
  describe?(path: string, text: string): string;
  /** Further lines printed under a valid file's summary (e.g. how each clause is prevented). */
  explain?(path: string, text: string): string[];
}
