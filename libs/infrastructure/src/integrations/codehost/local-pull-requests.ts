/**
 * Pull requests of a local repository. Git itself has none, so the local-git code host keeps them as
 * JSON records inside the repository's git directory, where no commit, clone or work tree sees them
 * (docs/decisions.md, "Monitoring plans"):
 *
 *   {git dir}/svc/pulls/{number}.json     {number, title, body, head, base, headSha, author, state, mergeSha, createTime}
 *   {git dir}/svc/comments/{id}.json      {id, pull, body, createTime, updateTime}
 *
 * Numbers and comment ids are allocated by creating the next file exclusively (`wx`), so two writers
 * never share one. `openPullRequest` and `mergePullRequest` are what a person or a test does on a
 * hosted service's pages; the CLI's `codehost pr` commands call them (docs/operations.md).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkCommentBody, checkCommentId, checkPullNumber, CodeHostError, type PullRequest, type PullRequestComment } from './codehost.port';

export interface LocalPullRecord {
  number: number;
  title: string;
  body: string;
  /** The branch proposed, and the branch it goes into. */
  head: string;
  base: string;
  /** The head commit when the record was last written (a deleted head branch still answers it). */
  headSha: string;
  author: { login: string; id: string };
  state: 'open' | 'closed';
  mergeSha: string | null;
  createTime: string;
}

interface LocalCommentRecord {
  id: string;
  pull: number;
  body: string;
  createTime: string;
  updateTime: string;
}

/** Records per kind a repository may hold: allocation scans at most this many numbers. */
const MAX_RECORDS = 100_000;
/** A record file larger than this is not read (a body is at most 65,536 characters). */
const MAX_RECORD_BYTES = 1024 * 1024;

/** The git directory of a repository directory: `.git` of a work tree, or the bare repository itself. */
export function gitDirOf(repoDir: string): string {
  const dotGit = path.join(repoDir, '.git');
  return fs.existsSync(dotGit) && fs.statSync(dotGit).isDirectory() ? dotGit : repoDir;
}

export const localPullUrl = (fullName: string, number: number): string => `local-git://${fullName}/pull/${number}`;

export function toPullRequest(fullName: string, record: LocalPullRecord, liveHeadSha: string | null): PullRequest {
  return {
    number: record.number,
    url: localPullUrl(fullName, record.number),
    title: record.title,
    body: record.body,
    state: record.state,
    merged: record.mergeSha !== null,
    headSha: record.state === 'open' && liveHeadSha ? liveHeadSha : record.headSha,
    mergeSha: record.mergeSha,
    authorLogin: record.author.login,
    authorId: record.author.id,
  };
}

export async function readPullRecord(gitDir: string, number: number): Promise<LocalPullRecord | null> {
  return readRecord<LocalPullRecord>(path.join(gitDir, 'svc', 'pulls', `${checkPullNumber(number)}.json`));
}

/** Opens a pull request of `head` into `base`; answers its record (number allocated here). */
export async function openPullRequest(
  gitDir: string,
  pull: { title: string; body?: string; head: string; base: string; headSha: string; author: { login: string; id: string }; now?: string },
): Promise<LocalPullRecord> {
  const dir = path.join(gitDir, 'svc', 'pulls');
  return allocate(dir, (n) => ({
    number: n,
    title: pull.title,
    body: pull.body ?? '',
    head: pull.head,
    base: pull.base,
    headSha: pull.headSha,
    author: pull.author,
    state: 'open',
    mergeSha: null,
    createTime: pull.now ?? new Date().toISOString(),
  }));
}

/** Records that the pull request landed as `mergeSha` (the merge itself is done with git). */
export async function mergePullRequest(gitDir: string, number: number, mergeSha: string, headSha?: string): Promise<LocalPullRecord> {
  const record = await readPullRecord(gitDir, number);
  if (!record) throw new CodeHostError('NOT_FOUND', `pull request #${number} not found`);
  const merged: LocalPullRecord = { ...record, state: 'closed', mergeSha, headSha: headSha ?? record.headSha };
  await writeRecord(path.join(gitDir, 'svc', 'pulls', `${number}.json`), merged);
  return merged;
}

/** Edits the title and body, as a person editing the pull request's description. */
export async function editPullRequest(gitDir: string, number: number, change: { title?: string; body?: string }): Promise<LocalPullRecord> {
  const record = await readPullRecord(gitDir, number);
  if (!record) throw new CodeHostError('NOT_FOUND', `pull request #${number} not found`);
  const edited: LocalPullRecord = { ...record, ...(change.title === undefined ? {} : { title: change.title }), ...(change.body === undefined ? {} : { body: change.body }) };
  await writeRecord(path.join(gitDir, 'svc', 'pulls', `${number}.json`), edited);
  return edited;
}

export async function postLocalComment(gitDir: string, fullName: string, number: number, body: string, now = new Date().toISOString()): Promise<PullRequestComment> {
  checkCommentBody(body);
  if (!(await readPullRecord(gitDir, number))) throw new CodeHostError('NOT_FOUND', `${fullName} has no pull request #${number}`);
  const record = await allocate(path.join(gitDir, 'svc', 'comments'), (n): LocalCommentRecord => ({ id: String(n), pull: number, body, createTime: now, updateTime: now }));
  return commentOf(fullName, record);
}

export async function editLocalComment(gitDir: string, fullName: string, id: string, body: string, now = new Date().toISOString()): Promise<PullRequestComment> {
  checkCommentBody(body);
  const file = path.join(gitDir, 'svc', 'comments', `${checkCommentId(id)}.json`);
  const record = await readRecord<LocalCommentRecord>(file);
  if (!record) throw new CodeHostError('NOT_FOUND', `${fullName} has no comment ${id}`);
  const edited = { ...record, body, updateTime: now };
  await writeRecord(file, edited);
  return commentOf(fullName, edited);
}

/** Every comment of a pull request, oldest first (for tests and the demo). */
export async function listLocalComments(gitDir: string, fullName: string, number: number): Promise<PullRequestComment[]> {
  const dir = path.join(gitDir, 'svc', 'comments');
  const names = await fs.promises.readdir(dir).catch(() => [] as string[]);
  const records = await Promise.all(names.filter((n) => /^[0-9]+\.json$/.test(n)).map((n) => readRecord<LocalCommentRecord>(path.join(dir, n))));
  return records
    .filter((r): r is LocalCommentRecord => r !== null && r.pull === number)
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((r) => commentOf(fullName, r));
}

const commentOf = (fullName: string, r: LocalCommentRecord): PullRequestComment => ({
  id: r.id,
  url: `${localPullUrl(fullName, r.pull)}#issuecomment-${r.id}`,
  body: r.body,
});

/** Creates `{dir}/{n}.json` for the next free n, exclusively. */
async function allocate<T>(dir: string, make: (n: number) => T): Promise<T> {
  await fs.promises.mkdir(dir, { recursive: true });
  const taken = (await fs.promises.readdir(dir)).filter((n) => /^[0-9]+\.json$/.test(n)).map((n) => Number(n.slice(0, -5)));
  let n = taken.length === 0 ? 1 : Math.max(...taken) + 1;
  for (; n <= MAX_RECORDS; n++) {
    const record = make(n);
    try {
      await fs.promises.writeFile(path.join(dir, `${n}.json`), JSON.stringify(record, null, 2), { flag: 'wx' });
      return record;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new CodeHostError('UNAVAILABLE', `more than ${MAX_RECORDS} records in ${path.basename(dir)}`);
}

async function readRecord<T>(file: string): Promise<T | null> {
  try {
    const stat = await fs.promises.stat(file);
    if (stat.size > MAX_RECORD_BYTES) throw new CodeHostError('UNAVAILABLE', `${path.basename(file)} is larger than ${MAX_RECORD_BYTES} bytes`);
    return JSON.parse(await fs.promises.readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Written beside and renamed over, so a reader never sees half a record. */
async function writeRecord(file: string, record: unknown): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.promises.writeFile(temp, JSON.stringify(record, null, 2));
  await fs.promises.rename(temp, file);
}
