/** One HTTP answer as the tester reads it: status, headers, and the body (JSON when it parses). */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface RequestOptions {
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  method?: string;
}

/**
 * The tester's only way to the deployment: HTTP to the origin the user named (their own service, so
 * loopback is allowed; nothing here is fetched on a caller's behalf). Requests are paced to stay under
 * the deployment's per-minute limit; a 429 all the same stops the run with how to raise the limit.
 */
export class Http {
  private readonly sent: number[] = [];
  requests = 0;

  constructor(
    readonly base: string,
    private readonly perMinute: number,
  ) {}

  async call(path: string, options: RequestOptions = {}): Promise<Answer> {
    this.requests++;
    await this.pace();
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const url = /^https?:\/\//.test(path) ? path : this.base + path;
    const res = await fetch(url, {
      method: options.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    const text = await res.text();
    if (res.status === 429)
      throw new RateLimited(
        `${url} answered 429: the deployment's rate limit is below this run. Start it with a higher ` +
          `RATE_LIMIT_PER_MINUTE, or pass --rate <requests per minute> to pace the tester under it.`,
      );
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: the text is the body
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** Waits until one more request keeps the last minute at or under the limit. */
  private async pace(): Promise<void> {
    if (!Number.isFinite(this.perMinute)) return;
    const now = Date.now();
    while (this.sent.length > 0 && now - this.sent[0]! >= 60_000) this.sent.shift();
    if (this.sent.length >= this.perMinute) {
      await new Promise((resolve) => setTimeout(resolve, 60_000 - (now - this.sent[0]!)));
      return this.pace();
    }
    this.sent.push(now);
  }
}

/** The deployment refused for rate: not a model failure, and no point going on. */
export class RateLimited extends Error {}
