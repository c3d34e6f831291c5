/**
 * The SO-101 fixture the chunk-path tests build their rig from: the calibration derived from the
 * real LeRobot recording and the default clause spec, parsed once (a parse failure fails the file).
 */
import { readFileSync } from 'node:fs';
import { parseSo101Calibration } from '../../../src/calibration/so101.js';
import { defaultSpecPaths, loadScoringSpec } from '../../../src/cli/spec-files.js';

const PATH = 'test/fixtures/so101-lerobot-record-test.calibration.yaml';
const parsed = parseSo101Calibration(readFileSync(PATH, 'utf8'), PATH);
if (!parsed.ok) throw new Error(`${PATH}: fixture calibration does not parse`);
const loaded = loadScoringSpec(defaultSpecPaths());
if (!loaded.ok) throw new Error('the default spec does not parse');

export const SO101_FIXTURE_CALIBRATION = parsed.value;
export const SO101_FIXTURE_SPEC = loaded.spec;
/** The declared task the fixtures run (its clauses are the monitors'). */
export const SO101_FIXTURE_TASK = 'sim-pick-cup-into-box';
