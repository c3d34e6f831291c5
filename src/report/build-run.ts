/**
 * A report over a directory of episodes: list, read one episode at a time, fold, render, write.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UnlabelledEpisodeError } from '../episode/trace.js';
import { ReportBuilder, type BuildOptions } from './build.js';
import { EpisodeFileReader, listEpisodeFiles } from './build-sources.js';
import type { ReportData } from './build-types.js';
import { renderEpisodesCsv, renderHtml, renderMarkdown, renderSummaryJson } from './render/index.js';

export type ProgressFn = (done: number, total: number, file: string) => void;

export async function buildReportFromDir(
  dir: string,
  opts: BuildOptions,
  onProgress?: ProgressFn,
): Promise<ReportData> {
  const files = await listEpisodeFiles(dir);
  const reader = await EpisodeFileReader.forDir(dir);
  const builder = new ReportBuilder(opts);
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    try {
      const { trace, extras } = await reader.read(file);
      builder.add(trace, extras);
    } catch (e) {
      if (e instanceof UnlabelledEpisodeError) builder.unlabelled(e.episode);
      else builder.exclude(file, (e as Error).message);
    }
    onProgress?.(i + 1, files.length, file);
  }
  return builder.finish();
}

export const REPORT_FILES = {
  html: 'report.html',
  markdown: 'report.md',
  csv: 'episodes.csv',
  json: 'summary.json',
} as const;

/** Write the four report files into `outDir` (created); returns their paths. */
export async function writeReport(outDir: string, data: ReportData): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const out: [string, string][] = [
    [REPORT_FILES.html, renderHtml(data)],
    [REPORT_FILES.markdown, renderMarkdown(data)],
    [REPORT_FILES.csv, renderEpisodesCsv(data.rows)],
    [REPORT_FILES.json, renderSummaryJson(data)],
  ];
  const paths: string[] = [];
  for (const [name, text] of out) {
    const p = join(outDir, name);
    await writeFile(p, text);
    paths.push(p);
  }
  return paths;
}

/** A one-line text progress bar (`\r`-redrawn), written at most every percent. */
export class ProgressBar {
  private lastShown = -1;

  constructor(
    private readonly write: (s: string) => void,
    private readonly width = 30,
  ) {}

  update(done: number, total: number): void {
    const pctDone = total === 0 ? 100 : Math.floor((100 * done) / total);
    if (pctDone === this.lastShown && done !== total) return;
    this.lastShown = pctDone;
    const filled = Math.round((this.width * pctDone) / 100);
    this.write(`\r[${'#'.repeat(filled)}${'.'.repeat(this.width - filled)}] ${done}/${total} episodes (${pctDone}%)`);
    if (done === total) this.write('\n');
  }
}
