import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseClauseLibrary } from '../../src/safety/library.js';
import { parseTaskMap } from '../../src/safety/tasks.js';
import { parsePlatformProfiles } from '../../src/schema/platform.js';
import { loadSpec, readSpec } from './support/spec-fixture.js';

const { library } = loadSpec();
const parsers: [string, (text: string) => { ok: boolean; error?: { where: { file?: string; line?: number } }[] }][] = [
  ['clauses.yaml', (t) => parseClauseLibrary(t, 'f.yaml') as never],
  ['tasks.yaml', (t) => parseTaskMap(t, 'f.yaml', library.tags) as never],
  ['platforms.yaml', (t) => parsePlatformProfiles(t, 'f.yaml') as never],
];

describe('spec file parsers never throw and always position their errors (fuzz)', () => {
  it.each(parsers)('%s: arbitrary text', (_name, parse) => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const r = parse(s);
        if (!r.ok) for (const e of r.error!) expect(e.where.file).toBe('f.yaml');
      }),
      { numRuns: 300 },
    );
  });

  it.each(parsers)('%s: the real file with lines deleted, duplicated or garbled', (name, parse) => {
    const lines = readSpec(name).split('\n');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(lines.length - 1), fc.constantFrom('delete', 'dup', 'garble', 'indent')), {
          minLength: 1,
          maxLength: 4,
        }),
        (edits) => {
          const out = [...lines];
          for (const [i, op] of edits) {
            const l = out[i % out.length] ?? '';
            if (op === 'delete') out.splice(i % out.length, 1);
            else if (op === 'dup') out.splice(i % out.length, 0, l);
            else if (op === 'garble') out[i % out.length] = l.replace(/[:\]}]/, '');
            else out[i % out.length] = ` ${l}`;
          }
          const r = parse(out.join('\n'));
          if (!r.ok) {
            expect(r.error!.length).toBeGreaterThan(0);
            for (const e of r.error!) expect(e.where.file).toBe('f.yaml');
            // line numbers, when given, are inside the file
            for (const e of r.error!)
              if (e.where.line !== undefined) expect(e.where.line).toBeLessThanOrEqual(out.length + 1);
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
