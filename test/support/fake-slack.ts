/**
 * A local stand-in for Slack's Web API, answering the methods the Slack chat adapter calls as the
 * reference documents them (every method: `POST https://slack.com/api/{method}`, form-encoded or
 * JSON arguments, the token as `Authorization: Bearer`, HTTP 200 with `{"ok": true, ...}` or
 * `{"ok": false, "error": "<code>"}`):
 * - users.conversations (https://docs.slack.dev/reference/methods/users.conversations): `types`,
 *   `exclude_archived`, `limit` (at most 1000, default 100), `cursor`; `channels[]` and
 *   `response_metadata.next_cursor`, empty on the last page (https://docs.slack.dev/apis/web-api/pagination);
 *   `invalid_cursor`, `invalid_limit`;
 * - conversations.list (https://docs.slack.dev/reference/methods/conversations.list): the same
 *   paging, every channel with `is_member`;
 * - chat.postMessage (https://docs.slack.dev/reference/methods/chat.postMessage): `channel`, `text`,
 *   `thread_ts`; `{ok, channel, ts, message}`; `channel_not_found`, `not_in_channel`, `is_archived`,
 *   `no_text`, `msg_too_long` (text above 40,000 characters);
 * - conversations.open (https://docs.slack.dev/reference/methods/conversations.open): `users`;
 *   `{ok, channel: {id}}`, with `no_op` and `already_open` when resumed; `user_not_found`,
 *   `users_list_not_supplied`;
 * - users.info (https://docs.slack.dev/reference/methods/users.info): `user`; `user_not_found`;
 * - users.lookupByEmail (https://docs.slack.dev/reference/methods/users.lookupByEmail): `email`;
 *   `users_not_found`;
 * - authentication (https://docs.slack.dev/authentication/tokens): no token `not_authed`, a wrong one
 *   `invalid_auth`;
 * - rate limits (https://docs.slack.dev/apis/web-api/rate-limits): HTTP 429 with a `Retry-After`
 *   header in seconds.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeChannel {
  id: string;
  name: string;
  member: boolean;
  isPrivate?: boolean;
  archived?: boolean;
}

export interface FakeUser {
  id: string;
  name: string;
  realName?: string;
  email?: string;
  deleted?: boolean;
  isBot?: boolean;
}

export interface SlackRequest {
  method: string;
  authorization?: string;
  params: Record<string, string>;
}

export interface PostedSlackMessage {
  channel: string;
  text: string;
  threadTs?: string;
  ts: string;
}

const BOT_USER = 'U0BOT';
const MAX_TEXT = 40_000;

export class FakeSlack {
  private server?: Server;
  readonly requests: SlackRequest[] = [];
  readonly posted: PostedSlackMessage[] = [];
  private readonly ims = new Map<string, string>();
  private readonly rateLimits = new Map<string, number>();
  private clock = 1_700_000_000;

  constructor(
    private readonly token: string,
    readonly channels: FakeChannel[] = [],
    readonly users: FakeUser[] = [],
    readonly teamId = 'T001',
  ) {}

  /** Starts listening; answers the base URL the client takes as `slackApiUrl` (`…/api/`). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next call of `method` answers HTTP 429 with `Retry-After: seconds`. */
  rateLimitNext(method: string, seconds: number): void {
    this.rateLimits.set(method, seconds);
  }

  callsOf(method: string): SlackRequest[] {
    return this.requests.filter((r) => r.method === method);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = url.pathname.replace(/^\/api\//, '');
    const params = await readParams(req, url);
    this.requests.push({ method, authorization: req.headers.authorization, params });
    const limited = this.rateLimits.get(method);
    if (limited !== undefined) {
      this.rateLimits.delete(method);
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(limited) });
      res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    const auth = req.headers.authorization ?? (params.token ? `Bearer ${params.token}` : undefined);
    if (!auth) return send(res, { ok: false, error: 'not_authed' });
    if (auth !== `Bearer ${this.token}`) return send(res, { ok: false, error: 'invalid_auth' });
    send(res, this.answer(method, params));
  }

  private answer(method: string, p: Record<string, string>): Record<string, unknown> {
    switch (method) {
      case 'users.conversations':
        return this.page(p, this.channels.filter((c) => c.member));
      case 'conversations.list':
        return this.page(p, this.channels);
      case 'chat.postMessage':
        return this.post(p);
      case 'conversations.open':
        return this.open(p);
      case 'users.info': {
        const user = this.users.find((u) => u.id === p.user);
        return user ? { ok: true, user: userJson(user, this.teamId) } : { ok: false, error: 'user_not_found' };
      }
      case 'users.lookupByEmail': {
        const user = this.users.find((u) => u.email !== undefined && u.email.toLowerCase() === (p.email ?? '').toLowerCase());
        return user ? { ok: true, user: userJson(user, this.teamId) } : { ok: false, error: 'users_not_found' };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  private page(p: Record<string, string>, all: FakeChannel[]): Record<string, unknown> {
    const limit = p.limit === undefined ? 100 : Number(p.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return { ok: false, error: 'invalid_limit' };
    let offset = 0;
    if (p.cursor) {
      const decoded = /^offset:(\d+)$/.exec(Buffer.from(p.cursor, 'base64').toString('utf8'));
      if (!decoded) return { ok: false, error: 'invalid_cursor' };
      offset = Number(decoded[1]);
    }
    const types = (p.types ?? 'public_channel').split(',');
    const listed = all.filter((c) => types.includes(c.isPrivate ? 'private_channel' : 'public_channel') && !(p.exclude_archived === 'true' && c.archived));
    const slice = listed.slice(offset, offset + limit);
    const next = offset + limit < listed.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
    return {
      ok: true,
      channels: slice.map((c) => ({
        id: c.id,
        name: c.name,
        is_channel: !c.isPrivate,
        is_group: false,
        is_im: false,
        is_private: c.isPrivate === true,
        is_archived: c.archived === true,
        is_member: c.member,
        name_normalized: c.name,
        created: 1_449_252_889,
      })),
      response_metadata: { next_cursor: next },
    };
  }

  private post(p: Record<string, string>): Record<string, unknown> {
    const id = p.channel ?? '';
    const channel = this.channels.find((c) => c.id === id);
    const im = [...this.ims.values()].includes(id);
    if (!channel && !im) return { ok: false, error: 'channel_not_found' };
    if (channel?.archived) return { ok: false, error: 'is_archived' };
    if (channel && !channel.member) return { ok: false, error: 'not_in_channel' };
    const text = p.text ?? '';
    if (text === '' && !p.blocks && !p.attachments) return { ok: false, error: 'no_text' };
    if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
    const ts = `${this.clock++}.000100`;
    this.posted.push({ channel: id, text, ts, ...(p.thread_ts ? { threadTs: p.thread_ts } : {}) });
    return { ok: true, channel: id, ts, message: { type: 'message', user: BOT_USER, bot_id: 'B0BOT', text, ts } };
  }

  private open(p: Record<string, string>): Record<string, unknown> {
    if (!p.users) return { ok: false, error: 'users_list_not_supplied' };
    const ids = p.users.split(',');
    if (ids.length > 1) return { ok: false, error: 'method_not_supported_for_channel_type' };
    if (!this.users.some((u) => u.id === ids[0] && !u.deleted)) return { ok: false, error: 'user_not_found' };
    const existing = this.ims.get(ids[0]);
    if (existing) return { ok: true, no_op: true, already_open: true, channel: { id: existing } };
    const id = `D${String(this.ims.size + 1).padStart(8, '0')}`;
    this.ims.set(ids[0], id);
    return { ok: true, channel: { id } };
  }
}

function userJson(user: FakeUser, teamId: string): Record<string, unknown> {
  return {
    id: user.id,
    team_id: teamId,
    name: user.name,
    deleted: user.deleted === true,
    real_name: user.realName ?? user.name,
    is_bot: user.isBot === true,
    profile: { real_name: user.realName ?? user.name, display_name: user.name, ...(user.email ? { email: user.email } : {}) },
  };
}

async function readParams(req: IncomingMessage, url: URL): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  if ((req.headers['content-type'] ?? '').startsWith('application/json') && body) {
    for (const [k, v] of Object.entries(JSON.parse(body) as Record<string, unknown>)) params[k] = typeof v === 'string' ? v : JSON.stringify(v);
  } else {
    for (const [k, v] of new URLSearchParams(body)) params[k] = v;
  }
  return params;
}

function send(res: ServerResponse, body: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
