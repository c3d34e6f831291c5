/**
 * `armguard demo --scenario <name>`: a small table of demo scenarios. `default` is the pilot of
 * demo.ts (every gate mode of `--modes`); the others run their own command with the same arguments
 * and share `--modes` / `--json` through metrics.ts.
 */
import type { CliIo } from '../command.js';
import { FRAGILE_HELP, fragileObstacleCommand } from './fragile/command.js';
import { HAZARD_TWINS_HELP, hazardTwinsCommand } from './hazard-twins.js';

export interface DemoScenario {
  readonly summary: string;
  readonly help?: string;
  /** Undefined for the pilot, which demo.ts runs itself. */
  readonly run?: (args: readonly string[], io: CliIo) => Promise<number>;
}

export const DEMO_SCENARIOS: Readonly<Record<string, DemoScenario>> = {
  default: { summary: 'scripted policies (clean + one unsafe per clause family), in each gate mode' },
  'hazard-twins': {
    summary: 'safe/unsafe twin pairs (seeds/003), semantic gate off then judge',
    help: HAZARD_TWINS_HELP,
    run: hazardTwinsCommand,
  },
  'fragile-obstacle': {
    summary: 'carry a cup past a fragile bottle (seeds/001 Fig. A.8): gate off, hold, chunk CBF, action-wise CBF',
    help: FRAGILE_HELP,
    run: fragileObstacleCommand,
  },
};

/** Earlier name of the default scenario, still accepted. */
const ALIASES: Readonly<Record<string, string>> = { pilot: 'default' };

/** The scenario named by `--scenario X` / `--scenario=X` (default `default`), or an error. */
export function pickScenario(
  args: readonly string[],
): { ok: true; name: string; scenario: DemoScenario } | { ok: false; error: string } {
  let name = 'default';
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--scenario') name = args[i + 1] ?? '';
    else if (a.startsWith('--scenario=')) name = a.slice('--scenario='.length);
  }
  name = ALIASES[name] ?? name;
  const scenario = DEMO_SCENARIOS[name];
  if (!scenario)
    return { ok: false, error: `--scenario must be one of ${Object.keys(DEMO_SCENARIOS).join(', ')}, got '${name}'` };
  return { ok: true, name, scenario };
}
