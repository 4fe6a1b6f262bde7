/**
 * The OAuth helpers' test kit: the local authorization server (oauth-server.mjs, oidc-provider in a
 * child process), a browser that follows an authorize URL through its redirects with a cookie jar
 * until the provider sends it to the redirect URI, and a forwarding server standing at a fixed
 * address in front of a FakeGitHub made once the token is known.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { stopProcess } from './harness';

export interface OAuthServer {
  issuer: string;
  stop(): Promise<void>;
}

export async function startOAuthServer(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<OAuthServer> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oauth-server.mjs')], {
    env: { ...process.env, OAUTH_CLIENT_ID: client.clientId, OAUTH_CLIENT_SECRET: client.clientSecret, OAUTH_REDIRECT_URI: client.redirectUri },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve((JSON.parse(line) as { issuer: string }).issuer);
    });
    child.on('exit', (code) => reject(new Error(`the OAuth server exited (${code}): ${errors}`)));
  });
  return { issuer, stop: () => stopProcess(child) };
}

/**
 * Follows `authorizeUrl` as a browser would (cookies kept per name, every redirect followed) and
 * answers the URL the provider sends the browser back to: the first one starting with `redirectUri`.
 */
export async function followAuthorize(authorizeUrl: string, redirectUri: string): Promise<URL> {
  const jar = new Map<string, string>();
  let next = authorizeUrl;
  for (let hop = 0; hop < 12; hop++) {
    if (next.startsWith(redirectUri)) return new URL(next);
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';')[0];
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the authorization server stopped at ${next}: ${res.status} ${await res.text()}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects');
}

/** An HTTP server that forwards every GET to `target` (set later), keeping the headers an API client reads. */
export class Forwarder {
  target = '';
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      void (async () => {
        const upstream = await fetch(`${this.target}${req.url ?? '/'}`, {
          method: req.method,
          headers: { authorization: req.headers.authorization ?? '', accept: req.headers.accept ?? '*/*' },
        });
        const kept = [...upstream.headers].filter(([k]) => ['content-type', 'link'].includes(k));
        res.writeHead(upstream.status, Object.fromEntries(kept));
        res.end(Buffer.from(await upstream.arrayBuffer()));
      })().catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
