/**
 * A scripted HTTP server on loopback that speaks the OpenAI chat-completions protocol (POST
 * /v1/chat/completions, JSON in, JSON out), for testing judge clients: each request gets the next
 * scripted reply (status, body, delay); the requests are kept for inspection.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedReply {
  readonly status?: number;
  /** Raw body; or `content` to wrap into a chat.completion object. */
  readonly body?: string;
  readonly content?: string;
  readonly delayMs?: number;
  /** Destroy the socket without answering. */
  readonly hangUp?: boolean;
}

export function chatCompletion(content: string, model = 'scripted-vlm'): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
}

export class ScriptedChatServer {
  readonly requests: { path: string; headers: IncomingMessage['headers']; body: unknown }[] = [];
  private readonly script: ScriptedReply[] = [];
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();

  reply(...r: ScriptedReply[]): void {
    this.script.push(...r);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        const r = this.script.shift() ?? { status: 500, body: '{"error":"no scripted reply"}' };
        const send = (): void => {
          if (r.hangUp) {
            req.socket.destroy();
            return;
          }
          if (req.url !== '/v1/chat/completions') {
            res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
            return;
          }
          res
            .writeHead(r.status ?? 200, { 'content-type': 'application/json' })
            .end(r.body ?? chatCompletion(r.content ?? ''));
        };
        if (r.delayMs) {
          const t = setTimeout(() => {
            this.timers.delete(t);
            if (!res.destroyed) send();
          }, r.delayMs);
          this.timers.add(t);
        } else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
