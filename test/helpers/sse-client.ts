import { eventually } from './poll.js';

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * A minimal Server-Sent Events reader over fetch (the parsing rules of the
 * HTML spec: fields per line, a blank line dispatches, `:` starts a comment).
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  lastEventId: string | undefined;
  ended = false;
  private buffer = '';
  private pending: { event?: string; id?: string; data: string[] } = { data: [] };

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async open(url: string, opts: { token?: string; lastEventId?: string; headers?: Record<string, string> } = {}): Promise<SseClient> {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const controller = new AbortController();
    const res = await fetch(url, { headers, signal: controller.signal });
    const client = new SseClient(res, controller);
    if (res.ok && res.body) void client.pump(res.body);
    return client;
  }

  get status(): number {
    return this.response.status;
  }

  ofType(type: string): SseEvent[] {
    return this.events.filter((e) => e.event === type);
  }

  /** Polls until `cond` holds; fails after `timeoutMs` with what arrived. */
  async until(cond: (c: SseClient) => boolean, what = 'condition', timeoutMs = 5_000): Promise<void> {
    await eventually(() => cond(this), `SSE: ${what}`, { timeoutMs, seen: () => this.events.map((e) => [e.id, e.event]) });
  }

  waitForEvents(n: number, timeoutMs?: number): Promise<void> {
    return this.until((c) => c.events.length >= n, `${n} events`, timeoutMs);
  }

  close(): void {
    this.controller.abort();
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        this.buffer += decoder.decode(chunk, { stream: true });
        let m: RegExpExecArray | null;
        while ((m = /\r\n|\r|\n/.exec(this.buffer))) {
          const line = this.buffer.slice(0, m.index);
          this.buffer = this.buffer.slice(m.index + m[0].length);
          this.line(line);
        }
      }
    } catch {
      // aborted by close()
    } finally {
      this.ended = true;
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.pending.data.length > 0) {
        this.events.push({ event: this.pending.event ?? 'message', id: this.pending.id ?? this.lastEventId, data: this.pending.data.join('\n') });
      }
      this.pending = { data: [] };
      return;
    }
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trim());
      return;
    }
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'event') this.pending.event = value;
    else if (field === 'data') this.pending.data.push(value);
    else if (field === 'id') this.pending.id = this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }
}
