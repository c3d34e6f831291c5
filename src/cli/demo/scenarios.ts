/**
 * `armguard demo --scenario <name>`: a small table of demo scenarios. `pilot` (the default) is the
 * gate-off/gate-on pilot of demo.ts; the others run their own command with the same arguments.
 */
import type { CliIo } from '../command.js';
import { HAZARD_TWINS_HELP, hazardTwinsCommand } from './hazard-twins.js';

export interface DemoScenario {
  readonly summary: string;
  readonly help?: string;
  /** Undefined for the pilot, which demo.ts runs itself. */
  readonly run?: (args: readonly string[], io: CliIo) => Promise<number>;
}

export const DEMO_SCENARIOS: Readonly<Record<string, DemoScenario>> = {
  pilot: { summary: 'scripted policies (clean + one unsafe per clause family), gate off then on' },
  'hazard-twins': { summary: 'safe/unsafe twin pairs (seeds/003), semantic gate off then judge', help: HAZARD_TWINS_HELP, run: hazardTwinsCommand },
};

/** The scenario named by `--scenario X` / `--scenario=X` (default `pilot`), or an error. */
export function pickScenario(args: readonly string[]): { ok: true; name: string; scenario: DemoScenario } | { ok: false; error: string } {
  let name = 'pilot';
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--scenario') name = args[i + 1] ?? '';
    else if (a.startsWith('--scenario=')) name = a.slice('--scenario='.length);
  }
  const scenario = DEMO_SCENARIOS[name];
  if (!scenario) return { ok: false, error: `--scenario must be one of ${Object.keys(DEMO_SCENARIOS).join(', ')}, got '${name}'` };
  return { ok: true, name, scenario };
}
