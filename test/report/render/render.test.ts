import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  renderEpisodesCsv,
  renderHtml,
  renderMarkdown,
  renderSummaryJson,
  traceSvg,
} from '../../../src/report/render/index.js';
import { downsample } from '../../../src/report/build-worst.js';
import { computeMetrics } from '../../../src/report/metrics/index.js';
import { summariseGate } from '../../../src/report/build-gate.js';
import type { EpisodeRow, ReportData, WorstEpisode } from '../../../src/report/build-types.js';

const HOSTILE = '<script>alert("x")</script>,"|\n';

function row(over: Partial<EpisodeRow> = {}): EpisodeRow {
  return {
    episodeId: 'ep',
    file: 'ep.mcap',
    format: 'mcap',
    fileState: 'complete',
    robotId: 'arm',
    platform: 'sim',
    task: 't',
    policy: 'p',
    gateMode: 'on',
    success: true,
    safe: true,
    evidence: 'none',
    steps: 10,
    duration: 0.5,
    rhoSafe: 1,
    vsi: 0,
    cc: 0,
    ret: 0,
    violated: [],
    manualViolated: [],
    reducedSet: [],
    ...over,
  };
}

function worstEpisode(id: string): WorstEpisode {
  const t = Float64Array.from({ length: 20 }, (_, i) => 100 + i * 0.1);
  return {
    episodeId: id,
    robotId: HOSTILE,
    success: true,
    vsi: 0.4,
    clauseId: 'max_contact_force',
    rho: -80,
    tau: 200,
    violationTime: 100.5,
    violationStep: 5,
    violatedClauses: ['max_contact_force'],
    t0: 100,
    duration: 1.9,
    traces: [
      {
        clauseId: 'max_contact_force',
        tier: 'safe',
        tau: 200,
        violated: true,
        t,
        value: t.map((_, i) => (i >= 5 && i < 8 ? -0.4 : 0.9)),
      },
      {
        clauseId: 'joint_torque',
        tier: 'safe',
        tau: 87,
        violated: false,
        t,
        value: t.map((_, i) => (i === 3 ? NaN : 0.7)),
      },
    ],
  };
}

function report(rows: EpisodeRow[], worst: WorstEpisode[]): ReportData {
  const summary = computeMetrics([], { bootstrap: { resamples: 0 } });
  return {
    format: 'armguard-report/1',
    title: HOSTILE,
    source: HOSTILE,
    generatedAt: 'now',
    bootstrap: { resamples: 0, seed: 1 },
    episodes: rows.length,
    robots: [{ robotId: HOSTILE, episodes: 1 }],
    monitoredThresholds: [{ clauseId: HOSTILE, tau: 1, from: HOSTILE, episodes: 1 }],
    summary,
    runGroups: [],
    gateModes: [],
    unlabelled: [],
    taskClauses: [],
    tasks: [],
    taskAll: { task: 'All', episodes: 0, successes: 0, safe: 0, unsafeSuccesses: 0, clauses: {} },
    runs: [],
    sensitivity: [],
    gate: summariseGate([]),
    prevention: [{ clause: HOSTILE, kind: 'reactive only', how: HOSTILE, epsilon: '', reactive: true }],
    worst,
    rows,
    skipped: [{ file: HOSTILE, reason: HOSTILE }],
    damaged: [{ file: HOSTILE, episodeId: HOSTILE, state: 'corrupt', end: HOSTILE, skippedRecords: 1 }],
    warnings: [HOSTILE],
  };
}

describe('report renderers', () => {
  it('HTML escapes every recorded string (episode ids, robot ids, file names come from files)', () => {
    const html = renderHtml(report([row({ episodeId: HOSTILE, robotId: HOSTILE })], [worstEpisode(HOSTILE)]));
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toMatch(/<link|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it('a long list of skipped files, damaged files or warnings says how many were left out', () => {
    const many = (k: number) => Array.from({ length: k }, (_, i) => i);
    const r: ReportData = {
      ...report([], []),
      skipped: many(25).map((i) => ({ file: `s${i}.mcap`, reason: 'bad' })),
      damaged: many(23).map((i) => ({
        file: `d${i}.mcap`,
        episodeId: `d${i}`,
        state: 'corrupt' as const,
        end: 'cut',
        skippedRecords: 1,
      })),
      warnings: many(130).map((i) => `w${i}`),
    };
    const html = renderHtml(r);
    expect(html).toContain('… and 5 more (see summary.json)'); // skipped: 20 shown
    expect(html).toContain('… and 3 more (see summary.json)'); // damaged: 20 shown
    expect(html).toContain('… and 30 more (see summary.json)'); // warnings: 100 shown
    const md = renderMarkdown(r);
    expect(md).toContain('s9.mcap (bad); … and 15 more (see summary.json)');
    expect(md).toContain('… and 13 more (see summary.json)');
  });

  it('an empty report renders without NaN or undefined leaking into the text', () => {
    const r = report([], []);
    for (const text of [renderHtml(r), renderMarkdown(r)]) {
      expect(text).not.toMatch(/NaN|undefined/);
    }
  });

  it('episodes.csv quotes fields per RFC 4180 and round-trips', () => {
    const csv = renderEpisodesCsv([row({ episodeId: HOSTILE, violated: ['a', 'b'], rhoSafe: Infinity, vsi: NaN })]);
    const lines = csv.split('\n');
    expect(lines[0]!.split(',')[0]).toBe('episode_id');
    // A minimal RFC 4180 reader, written here.
    const fields: string[] = [];
    let cur = '';
    let quoted = false;
    const body = csv.slice(csv.indexOf('\n') + 1);
    for (let i = 0; i < body.length; i++) {
      const ch = body[i]!;
      if (quoted) {
        if (ch === '"' && body[i + 1] === '"') {
          cur += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        fields.push(cur);
        cur = '';
      } else if (ch === '\n') {
        fields.push(cur);
        break;
      } else cur += ch;
    }
    expect(fields[0]).toBe(HOSTILE);
    const header = lines[0]!.split(',');
    expect(fields[header.indexOf('violated')]).toBe('a b');
    expect(fields[header.indexOf('rho_safe')]).toBe('inf');
    expect(fields[header.indexOf('vsi')]).toBe('');
    expect(fields).toHaveLength(header.length);
  });

  it('episodes.csv: the semantic gate columns (issue 18) — verdict, reason, latency, model, refused, stage times; empty without semantic records', () => {
    const sem = (over: Partial<NonNullable<EpisodeRow['semantic']>>): NonNullable<EpisodeRow['semantic']> => ({
      task: 'sim-twin-knife-into-crib',
      twin: 'knife-crib',
      variant: 'unsafe',
      category: 'personal',
      instruction: 'x',
      judge: 'openai:qwen2.5-vl-7b@http://127.0.0.1:8000/v1',
      failMode: 'closed',
      queries: 2,
      verdicts: [
        { t: 0.1, decision: 'allow', latency: 0.5, reason: 'ok', judge: 'j' },
        { t: 0.9, decision: 'refuse', latency: 1.5, reason: 'knife near crib', judge: 'j' },
      ],
      faults: [{ t: 0.2, cause: 'timeout', detail: 'd' }],
      refusals: 1,
      frames: 2,
      stages: { attempt: 0.25, commit: null, success: null },
      stagesObserved: true,
      ...over,
    });
    const csv = renderEpisodesCsv([
      row({ semantic: sem({}) }),
      row({
        semantic: sem({
          judge: 'lexicon:/spec/hazard-lexicon.yaml',
          verdicts: [],
          refusals: 0,
          faults: [],
          stagesObserved: false,
          stages: { attempt: null, commit: null, success: null },
        }),
      }),
      row(),
    ]);
    const [head, a, b, c] = csv
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const col = (r: string[] | undefined, k: string) => r![head!.indexOf(k)];
    expect(head!.slice(-15)).toEqual([
      'twin',
      'twin_variant',
      'hazard_category',
      'judge',
      'judge_model',
      'judge_verdict',
      'judge_reason',
      'judge_latency_mean_s',
      'judge_latency_max_s',
      'judge_refused',
      'judge_faults',
      'stages_observed',
      't_attempt_s',
      't_commit_s',
      't_success_s',
    ]);
    expect(head!.slice(-15).map((k) => col(a, k))).toEqual([
      'knife-crib',
      'unsafe',
      'personal',
      'openai:qwen2.5-vl-7b@http://127.0.0.1:8000/v1',
      'qwen2.5-vl-7b',
      'refuse',
      'knife near crib',
      '1',
      '1.5',
      'true',
      '1',
      'true',
      '0.25',
      '',
      '',
    ]);
    expect(col(b, 'judge_model')).toBe('lexicon');
    expect(col(b, 'judge_verdict')).toBe('none');
    expect(col(b, 'judge_refused')).toBe('false');
    expect(col(b, 'stages_observed')).toBe('false');
    expect(col(b, 't_attempt_s')).toBe('');
    expect(head!.slice(-15).map((k) => col(c, k))).toEqual(new Array(15).fill(''));
  });

  it('trace SVG: one path per clause, the violating one highlighted, NaN breaks the line, violation step marked', () => {
    const svg = traceSvg(worstEpisode('e1'), 'p1');
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toMatch(/class="clause-violating" data-clause="max_contact_force"/);
    const torque = /d="([^"]*)"[^>]*data-clause="joint_torque"/.exec(svg)![1]!;
    expect(torque.match(/M/g)).toHaveLength(2); // the NaN sample splits the line
    expect(svg).toContain('class="violation-step"');
    expect(svg).toContain('first violation: step 5, t = 0.50 s');
    expect(svg).not.toContain('NaN');
  });

  it('summary.json: typed arrays become arrays, non-finite numbers null, rows left to the CSV', () => {
    const json = JSON.parse(renderSummaryJson(report([row()], [worstEpisode('e1')])));
    expect(json.rows).toBeUndefined();
    expect(json.worst[0].traces[1].value[3]).toBeNull();
    expect(json.worst[0].traces[0].t).toHaveLength(20);
  });

  it('downsample keeps every bucket extreme (a one-step spike survives) and time order', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 601, max: 5000 }),
        fc.nat(),
        fc.double({ min: -5, max: -0.01, noNaN: true }),
        (n, at, depth) => {
          const spikeAt = at % n;
          const t = Float64Array.from({ length: n }, (_, i) => i);
          const v = Float64Array.from({ length: n }, (_, i) => (i === spikeAt ? depth : 1 + Math.sin(i)));
          const d = downsample(t, v, 600);
          expect(d.t.length).toBeLessThanOrEqual(600);
          expect(Math.min(...d.value)).toBe(depth);
          expect(d.t[d.value.indexOf(depth)]).toBe(spikeAt);
          for (let i = 1; i < d.t.length; i++) expect(d.t[i]!).toBeGreaterThan(d.t[i - 1]!);
        },
      ),
      { numRuns: 50 },
    );
  });
});
