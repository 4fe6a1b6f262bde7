/**
 * `pulls open|merge|comments`: pull requests of a local-git code host (its records inside each
 * repository's git directory; libs/infrastructure/src/integrations/codehost/local-pull-requests.ts),
 * what a person does on a hosted service's pages. They touch the repositories only, no store.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkFullName } from '@svc/infrastructure/integrations/codehost/codehost.port';
import { gitDirOf, listLocalComments, localPullUrl, mergePullRequest, openPullRequest } from '@svc/infrastructure/integrations/codehost/local-pull-requests';
import { type Context, UsageError } from '../context';

export interface PullOptions {
  root?: string;
  repo?: string;
  head?: string;
  base?: string;
  title?: string;
  body?: string;
  author?: string;
  number?: string;
  mergeSha?: string;
}

function repository(options: PullOptions): { fullName: string; dir: string } {
  if (!options.root || !options.repo) throw new UsageError('pulls needs --root <local-git root> and --repo <owner/repo>');
  checkFullName(options.repo);
  const dir = path.join(path.resolve(options.root), ...options.repo.split('/'));
  if (!fs.existsSync(dir)) throw new UsageError(`no repository ${options.repo} under ${options.root}`);
  return { fullName: options.repo, dir };
}

const revParse = (dir: string, ref: string): string =>
  execFileSync('git', ['-C', dir, 'rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], { encoding: 'utf8' }).trim();

function number(options: PullOptions): number {
  const n = Number(options.number);
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError('--number must be a pull request number');
  return n;
}

export async function openPull(ctx: Context, options: PullOptions): Promise<void> {
  const { fullName, dir } = repository(options);
  if (!options.head || !options.title) throw new UsageError('pulls open needs --head <branch> and --title <title>');
  const [login, id] = (options.author ?? 'ada:1').split(':');
  const record = await openPullRequest(gitDirOf(dir), {
    title: options.title,
    body: options.body ?? '',
    head: options.head,
    base: options.base ?? 'main',
    headSha: revParse(dir, options.head),
    author: { login, id: id ?? '1' },
  });
  ctx.print({ number: record.number, url: localPullUrl(fullName, record.number) }, (r) => `opened ${r.url}`);
}

export async function mergePull(ctx: Context, options: PullOptions): Promise<void> {
  const { fullName, dir } = repository(options);
  const n = number(options);
  const sha = revParse(dir, options.mergeSha ?? 'HEAD');
  await mergePullRequest(gitDirOf(dir), n, sha);
  ctx.print({ url: localPullUrl(fullName, n), mergeSha: sha }, (r) => `${r.url} landed as ${r.mergeSha}`);
}

export async function pullComments(ctx: Context, options: PullOptions): Promise<void> {
  const { fullName, dir } = repository(options);
  const comments = await listLocalComments(gitDirOf(dir), fullName, number(options));
  ctx.print({ comments }, (r) => r.comments.map((c) => `${c.url}\n${c.body}\n`).join('\n') || 'no comments');
}
