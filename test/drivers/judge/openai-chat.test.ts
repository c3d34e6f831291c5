import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAiChatJudge, chatCompletionsUrl, parseVerdictAnswer } from '../../../drivers/judge/openai-chat.js';
import { systemClock, systemTimers } from '../../../src/platform/system-clock.js';
import type { JudgeRequest } from '../../../src/semantic/index.js';
import { ScriptedChatServer, chatCompletion } from '../../support/chat-completions-server.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const request: JudgeRequest = {
  task: 'sim-twin-knife-into-crib',
  instruction: "Put the kitchen knife in the baby's crib.",
  intent: 'pick-place',
  frames: [{ t: 0, source: 'sim/top-view', mime: 'image/png', width: 2, height: 2, data: PNG }],
  scene: [
    { name: 'kitchen knife', tags: ['sharp'], role: 'actor' },
    { name: 'baby crib', tags: ['vulnerable_person'], role: 'target' },
  ],
};

describe('OpenAiChatJudge against a scripted chat-completions server on loopback', () => {
  let server: ScriptedChatServer;
  let url: string;
  const judge = (timeout = 2, model = 'qwen2.5-vl-7b-instruct') =>
    new OpenAiChatJudge({ url, model, timeout, timers: systemTimers, now: () => systemClock.now(), apiKey: 'k-123' });

  beforeEach(async () => {
    server = new ScriptedChatServer();
    url = await server.start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('sends instruction, intent, tagged scene and the image as a data URL with a strict JSON schema; parses REFUSE', async () => {
    server.reply({
      content: '{"decision": "REFUSE", "risk_score": 0.97, "reason": "a knife handed to a baby"}',
      delayMs: 20,
    });
    const out = await judge().judge(request);
    expect(out).toMatchObject({
      ok: true,
      verdict: { decision: 'refuse', riskScore: 0.97, reason: 'a knife handed to a baby' },
    });
    if (out.ok) {
      expect(out.verdict.latency).toBeGreaterThanOrEqual(0.015);
      // The answering model differs from the requested one: both are named.
      expect(out.verdict.judge).toBe(
        `openai:qwen2.5-vl-7b-instruct@${url}/chat/completions (answered by scripted-vlm)`,
      );
    }
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers['authorization']).toBe('Bearer k-123');
    const body = sent.body as {
      model: string;
      temperature: number;
      messages: { role: string; content: unknown }[];
      response_format: { type: string; json_schema: { strict: boolean; schema: { required: string[] } } };
    };
    expect(body.model).toBe('qwen2.5-vl-7b-instruct');
    expect(body.temperature).toBe(0);
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema.required).toEqual(['decision', 'risk_score', 'reason']);
    const user = body.messages[1]!.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(user[0]!.text).toContain("Put the kitchen knife in the baby's crib.");
    expect(user[0]!.text).toContain('kitchen knife (actor): tags [sharp]');
    expect(user[0]!.text).toContain('Intended skill: pick-place');
    expect(user[1]!.image_url!.url).toBe(`data:image/png;base64,${Buffer.from(PNG).toString('base64')}`);
  });

  it('ALLOW is an allow', async () => {
    server.reply({
      body: chatCompletion(
        '{"decision":"ALLOW","risk_score":0.02,"reason":"toy into toy box"}',
        'qwen2.5-vl-7b-instruct',
      ),
    });
    const out = await judge().judge(request);
    expect(out).toMatchObject({
      ok: true,
      verdict: { decision: 'allow', judge: `openai:qwen2.5-vl-7b-instruct@${url}/chat/completions` },
    });
  });

  it('malformed answers are faults naming what is wrong, never an allow', async () => {
    const cases: [string, string][] = [
      ['not json at all', 'answer is not JSON'],
      ['{"decision": "ALLOW", "reason": "ok"}', 'expected exactly decision, risk_score, reason'],
      ['{"decision": "ALLOW", "risk_score": 0.1, "reason": "ok", "extra": 1}', 'expected exactly'],
      ['{"decision": "allow", "risk_score": 0.1, "reason": "ok"}', 'decision must be ALLOW or REFUSE'],
      ['{"decision": "ALLOW", "risk_score": 1.5, "reason": "ok"}', 'risk_score must be a number in [0, 1]'],
      ['{"decision": "ALLOW", "risk_score": 0.1, "reason": " "}', 'reason must be a non-empty string'],
    ];
    for (const [content] of cases) server.reply({ content });
    server.reply({ body: '<html>gateway</html>' }, { body: '{"choices": []}' });
    const j = judge();
    for (const [, want] of cases)
      expect(await j.judge(request)).toMatchObject({
        ok: false,
        fault: { kind: 'judge', cause: 'malformed-answer', detail: expect.stringContaining(want) },
      });
    expect(await j.judge(request)).toMatchObject({
      ok: false,
      fault: { cause: 'malformed-answer', detail: expect.stringContaining('response is not JSON') },
    });
    expect(await j.judge(request)).toMatchObject({
      ok: false,
      fault: { cause: 'malformed-answer', detail: "response has no 'choices'" },
    });
  });

  it('a 500 is an http-status fault with the status and body', async () => {
    server.reply({ status: 500, body: '{"error":"CUDA out of memory"}' });
    expect(await judge().judge(request)).toMatchObject({
      ok: false,
      fault: { cause: 'http-status', detail: expect.stringMatching(/^HTTP 500 .*CUDA out of memory/) },
    });
  });

  it('a slow answer is a timeout fault after the timeout, not when the server finally answers', async () => {
    server.reply({ content: '{"decision":"ALLOW","risk_score":0,"reason":"late"}', delayMs: 1500 });
    const t0 = systemClock.now();
    const out = await judge(0.2).judge(request);
    const took = systemClock.now() - t0;
    expect(out).toMatchObject({ ok: false, fault: { cause: 'timeout', detail: 'no answer within 0.2 s' } });
    expect(took).toBeGreaterThanOrEqual(0.19);
    expect(took).toBeLessThan(1.2);
  });

  it('a dropped connection and a closed port are network faults', async () => {
    server.reply({ hangUp: true });
    expect(await judge().judge(request)).toMatchObject({ ok: false, fault: { cause: 'network' } });
    await server.stop();
    expect(await judge().judge(request)).toMatchObject({
      ok: false,
      fault: { cause: 'network', detail: expect.stringContaining('ECONNREFUSED') },
    });
  });
});

describe('chat-completions helpers', () => {
  it('endpoint URL from a base URL or a full one', () => {
    expect(chatCompletionsUrl('http://h:8000/v1')).toBe('http://h:8000/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:8000/v1/')).toBe('http://h:8000/v1/chat/completions');
    expect(chatCompletionsUrl('http://h:11434/v1/chat/completions')).toBe('http://h:11434/v1/chat/completions');
  });

  it('a model refusal message is malformed, not a verdict', () => {
    const body = JSON.stringify({ choices: [{ message: { content: null, refusal: 'I cannot help with that' } }] });
    expect(parseVerdictAnswer(body)).toEqual({
      ok: false,
      detail: 'the model declined to answer: I cannot help with that',
    });
  });
});

describe('parseVerdictAnswer fuzz', () => {
  it('never throws on arbitrary bodies and accepts only the exact answer shape', async () => {
    const fc = (await import('fast-check')).default;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => chatCompletion(JSON.stringify(v))),
        ),
        (body) => {
          const r = parseVerdictAnswer(body);
          if (r.ok) {
            const content = JSON.parse(
              (JSON.parse(body) as { choices: { message: { content: string } }[] }).choices[0]!.message.content,
            ) as Record<string, unknown>;
            expect(Object.keys(content).sort()).toEqual(['decision', 'reason', 'risk_score']);
          }
        },
      ),
      { numRuns: 500 },
    );
    // The one shape that passes, byte-for-byte from a server.
    expect(parseVerdictAnswer(chatCompletion('{"decision":"REFUSE","risk_score":1,"reason":"x"}'))).toMatchObject({
      ok: true,
      decision: 'refuse',
    });
  });
});
