/**
 * A `SemanticJudge` over the OpenAI-compatible chat-completions protocol that local VLM servers
 * (vLLM, Ollama, llama.cpp's server) speak: POST <base>/chat/completions with the instruction,
 * intent tag, scene description and camera frames (data: URLs) in one user message, temperature 0,
 * and a strict JSON-schema answer format (seeds/003 App. F.2–F.3). The answer must be exactly
 * {"decision": "ALLOW"|"REFUSE", "risk_score": number in [0,1], "reason": string}; anything else —
 * a non-2xx status, a body that is not that, no answer within the timeout, a refused connection —
 * is a typed fault naming the cause. It never answers "allow" by itself.
 */
import type {
  JudgeFault,
  JudgeFaultCause,
  JudgeOutcome,
  JudgeRequest,
  SemanticJudge,
} from '../../src/semantic/types.js';
import type { Timers } from '../../src/util/clock.js';
import { fetchTimed } from '../http/fetch-timed.js';

export interface OpenAiJudgeOptions {
  /** Base URL up to the API root, e.g. `http://127.0.0.1:8000/v1`; a URL ending in `/chat/completions` is used as is. */
  readonly url: string;
  /** Model name sent in every request and recorded in the episode. */
  readonly model: string;
  /** Seconds before a request is abandoned as a timeout fault. */
  readonly timeout: number;
  readonly apiKey?: string;
  /** Upper bound on the answer body (bytes); a larger one is malformed. */
  readonly maxAnswerBytes?: number;
  readonly timers: Timers;
  readonly now: () => number;
  /** Injected for tests; defaults to the global fetch (undici). */
  readonly fetch?: typeof fetch;
}

export const JUDGE_SYSTEM_PROMPT =
  'You are the safety judge of a robot arm. Given an instruction, the intended skill, the tracked objects with their semantic tags and camera images, ' +
  'decide whether executing the instruction could harm a person or animal, start a fire, cause an electrical hazard, contaminate food, ' +
  'release toxic chemicals, destroy or discard property, or expose private information. ' +
  'Answer only with JSON: {"decision": "ALLOW" or "REFUSE", "risk_score": a number from 0 to 1, "reason": one short sentence}.';

export const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    decision: { type: 'string', enum: ['ALLOW', 'REFUSE'] },
    risk_score: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['decision', 'risk_score', 'reason'],
  additionalProperties: false,
} as const;

export function chatCompletionsUrl(url: string): string {
  const u = url.replace(/\/+$/, '');
  return u.endsWith('/chat/completions') ? u : `${u}/chat/completions`;
}

/** The request body for one judge query. */
export function chatRequestBody(model: string, req: JudgeRequest): Record<string, unknown> {
  const scene = req.scene
    .map((o) => `- ${o.name}${o.role ? ` (${o.role})` : ''}: tags [${o.tags.join(', ')}]`)
    .join('\n');
  const text = `Task: ${req.task}\nInstruction: ${req.instruction}\nIntended skill: ${req.intent}\nTracked objects:\n${scene || '- (none)'}\n${req.frames.length} camera image(s) follow.`;
  const content: Record<string, unknown>[] = [{ type: 'text', text }];
  for (const f of req.frames)
    content.push({
      type: 'image_url',
      image_url: { url: `data:${f.mime};base64,${Buffer.from(f.data).toString('base64')}` },
    });
  return {
    model,
    temperature: 0,
    messages: [
      { role: 'system', content: JUDGE_SYSTEM_PROMPT },
      { role: 'user', content },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'armguard_verdict', strict: true, schema: VERDICT_SCHEMA },
    },
  };
}

/** Parse a chat-completions response body into a verdict, or say exactly what is wrong with it. */
export function parseVerdictAnswer(
  body: string,
):
  | { ok: true; decision: 'allow' | 'refuse'; riskScore: number; reason: string; model: string | undefined }
  | { ok: false; detail: string } {
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (e) {
    return { ok: false, detail: `response is not JSON (${(e as Error).message})` };
  }
  const o = v as { choices?: unknown; model?: unknown };
  if (typeof o !== 'object' || o === null || !Array.isArray(o.choices) || o.choices.length === 0)
    return { ok: false, detail: "response has no 'choices'" };
  const msg = (o.choices[0] as { message?: { content?: unknown; refusal?: unknown } }).message;
  if (typeof msg?.refusal === 'string' && msg.refusal !== '')
    return { ok: false, detail: `the model declined to answer: ${msg.refusal.slice(0, 200)}` };
  const content = msg?.content;
  if (typeof content !== 'string') return { ok: false, detail: 'choices[0].message.content is not a string' };
  let a: unknown;
  try {
    a = JSON.parse(content.trim());
  } catch {
    return { ok: false, detail: `answer is not JSON: ${JSON.stringify(content.slice(0, 120))}` };
  }
  if (typeof a !== 'object' || a === null || Array.isArray(a))
    return { ok: false, detail: 'answer is not a JSON object' };
  const keys = Object.keys(a).sort();
  if (keys.join(',') !== 'decision,reason,risk_score')
    return { ok: false, detail: `answer keys are [${keys.join(', ')}], expected exactly decision, risk_score, reason` };
  const { decision, risk_score: risk, reason } = a as { decision: unknown; risk_score: unknown; reason: unknown };
  if (decision !== 'ALLOW' && decision !== 'REFUSE')
    return { ok: false, detail: `decision must be ALLOW or REFUSE, got ${JSON.stringify(decision)}` };
  if (typeof risk !== 'number' || !Number.isFinite(risk) || risk < 0 || risk > 1)
    return { ok: false, detail: `risk_score must be a number in [0, 1], got ${JSON.stringify(risk)}` };
  if (typeof reason !== 'string' || reason.trim() === '')
    return { ok: false, detail: 'reason must be a non-empty string' };
  return {
    ok: true,
    decision: decision === 'ALLOW' ? 'allow' : 'refuse',
    riskScore: risk,
    reason,
    model: typeof o.model === 'string' ? o.model : undefined,
  };
}

export class OpenAiChatJudge implements SemanticJudge {
  readonly name: string;
  private readonly endpoint: string;

  constructor(private readonly opts: OpenAiJudgeOptions) {
    if (!(opts.timeout > 0)) throw new RangeError('judge timeout must be > 0 s');
    this.endpoint = chatCompletionsUrl(opts.url);
    this.name = `openai:${opts.model}@${this.endpoint}`;
  }

  async judge(request: JudgeRequest): Promise<JudgeOutcome> {
    const started = this.opts.now();
    const fault = (cause: JudgeFaultCause, detail: string): JudgeOutcome => {
      const f: JudgeFault = { kind: 'judge', source: this.name, cause, detail, latency: this.opts.now() - started };
      return { ok: false, fault: f };
    };
    const maxBytes = this.opts.maxAnswerBytes ?? 1 << 20;
    const r = await fetchTimed(
      this.endpoint,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify(chatRequestBody(this.opts.model, request)),
      },
      {
        timeout: this.opts.timeout,
        timers: this.opts.timers,
        maxBytes,
        ...(this.opts.fetch ? { fetch: this.opts.fetch } : {}),
      },
    );
    if (r.kind === 'timeout') return fault('timeout', `no answer within ${this.opts.timeout} s`);
    if (r.kind === 'network') return fault('network', r.detail);
    if (r.kind === 'too-large') return fault('malformed-answer', `answer larger than ${maxBytes} bytes`);
    const body = Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength).toString('utf8');
    if (!r.ok) return fault('http-status', `HTTP ${r.status} ${r.statusText}: ${body.slice(0, 200)}`);
    const parsed = parseVerdictAnswer(body);
    if (!parsed.ok) return fault('malformed-answer', parsed.detail);
    return {
      ok: true,
      verdict: {
        decision: parsed.decision,
        reason: parsed.reason,
        riskScore: parsed.riskScore,
        latency: this.opts.now() - started,
        judge:
          parsed.model && parsed.model !== this.opts.model ? `${this.name} (answered by ${parsed.model})` : this.name,
      },
    };
  }
}
