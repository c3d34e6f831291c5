/** The LeRobot dataset reader refuses what it would map wrongly or cannot read, naming the file. */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLeRobotDataset } from '../../../drivers/so101/lerobot-dataset.js';
import { sharedDir } from '../../support/paths.js';

const datasetDir = process.env.ARMGUARD_SO101_DATASET ?? join(sharedDir, 'data/so101-lerobot-record-test');
const dirs: string[] = [];

/** A writable copy of the dataset's meta/ and data/ (the shared files are read-only). */
function copyDataset(): string {
  const dir = mkdtempSync(join(tmpdir(), 'armguard-lerobot-'));
  dirs.push(dir);
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(datasetDir, rel))) {
      const r = join(rel, name);
      if (statSync(join(datasetDir, r)).isDirectory()) walk(r);
      else {
        mkdirSync(dirname(join(dir, r)), { recursive: true });
        writeFileSync(join(dir, r), readFileSync(join(datasetDir, r)));
      }
    }
  };
  walk('meta');
  walk('data');
  return dir;
}

type Info = { features: Record<string, { names: string[] }> };
function editInfo(dir: string, edit: (info: Info) => void): void {
  const path = join(dir, 'meta/info.json');
  const info = JSON.parse(readFileSync(path, 'utf8')) as Info;
  edit(info);
  writeFileSync(path, JSON.stringify(info, null, 4));
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('LeRobot dataset reader', () => {
  it('reads an unmodified copy (the fixture the refusals below are made from)', async () => {
    const ds = await readLeRobotDataset(copyDataset());
    expect(ds.ok && ds.value.info.stateNames).toEqual([
      'shoulder_pan.pos',
      'shoulder_lift.pos',
      'elbow_flex.pos',
      'wrist_flex.pos',
      'wrist_roll.pos',
      'gripper.pos',
    ]);
  });

  it('refuses observation.state joints in another order, naming file, field, expected and got', async () => {
    const dir = copyDataset();
    editInfo(dir, (info) => {
      const n = info.features['observation.state']!.names;
      [n[0], n[1]] = [n[1]!, n[0]!];
    });
    const ds = await readLeRobotDataset(dir);
    expect(ds.ok).toBe(false);
    if (ds.ok) return;
    expect(ds.error.where).toEqual({ file: join(dir, 'meta/info.json'), field: 'features.observation.state.names' });
    expect(ds.error.message).toContain(
      '[shoulder_pan.pos, shoulder_lift.pos, elbow_flex.pos, wrist_flex.pos, wrist_roll.pos, gripper.pos]',
    );
    expect(ds.error.message).toContain('got ["shoulder_lift.pos","shoulder_pan.pos","elbow_flex.pos"');
  });

  it('refuses six names that are not the SO-101 joints, and action names in another order', async () => {
    const other = copyDataset();
    editInfo(other, (info) => {
      info.features['observation.state']!.names = ['j1', 'j2', 'j3', 'j4', 'j5', 'j6'];
    });
    const a = await readLeRobotDataset(other);
    expect(!a.ok && a.error.where.field).toBe('features.observation.state.names');
    const action = copyDataset();
    editInfo(action, (info) => {
      info.features.action!.names.reverse();
    });
    const b = await readLeRobotDataset(action);
    expect(!b.ok && b.error.where).toEqual({ file: join(action, 'meta/info.json'), field: 'features.action.names' });
  });

  it('a parquet file that cannot be read is named in the error', async () => {
    const dir = copyDataset();
    const bad = join(dir, 'data/chunk-000/file-000.parquet');
    writeFileSync(bad, 'not a parquet file');
    const ds = await readLeRobotDataset(dir);
    expect(ds.ok).toBe(false);
    expect(!ds.ok && ds.error.where).toEqual({ file: bad });
    expect(!ds.ok && ds.error.message).toMatch(/^.*file-000\.parquet: cannot read parquet file: /);
    const meta = copyDataset();
    const badMeta = join(meta, 'meta/episodes/chunk-000/file-000.parquet');
    writeFileSync(badMeta, Buffer.alloc(0));
    const m = await readLeRobotDataset(meta);
    expect(!m.ok && m.error.where).toEqual({ file: badMeta });
  });
});
