/**
 * The dashboard page's side of its WebSocket protocol, from Node: what the page sends (`send`) and
 * the next message of a type it waits for (`next`; messages of other types queue until asked for).
 */
import WebSocket from 'ws';

/** A message from the dashboard server (the fields the tests read). */
export interface DashboardReply {
  type: string;
  ok?: boolean;
  reason?: string;
  command?: string;
  confirmed?: boolean;
  pressedBy?: string;
  state?: string;
}

export interface DashboardPage {
  send(m: object): void;
  next(type: string): Promise<DashboardReply>;
  close(): void;
}

/** Opens the page's WebSocket at `url` (the dashboard's http URL) with the page's own origin. */
export async function openDashboardPage(url: string): Promise<DashboardPage> {
  const base = url.replace(/\/$/, '');
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, { origin: base });
  const queue: DashboardReply[] = [];
  const waiting: { type: string; resolve: (r: DashboardReply) => void }[] = [];
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as DashboardReply;
    const w = waiting.findIndex((x) => x.type === m.type);
    if (w >= 0) waiting.splice(w, 1)[0]!.resolve(m);
    else queue.push(m);
  });
  await new Promise((r) => ws.once('open', r));
  return {
    send: (m) => ws.send(JSON.stringify(m)),
    next: (type) => {
      const q = queue.findIndex((x) => x.type === type);
      if (q >= 0) return Promise.resolve(queue.splice(q, 1)[0]!);
      return new Promise((resolve) => waiting.push({ type, resolve }));
    },
    close: () => ws.close(),
  };
}
