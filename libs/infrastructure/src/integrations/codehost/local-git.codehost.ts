/**
 * The local-git code host: repositories under a root directory (`{root}/{owner}/{repo}`, bare or with
 * a work tree), read with the machine's own `git`. Every call is `git` run without a shell, with its
 * arguments as an array after `--` where a user value could look like an option, bounded in time and
 * output; refs and paths are checked first (codehost.port.ts), and a repository resolves inside the
 * root only.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  checkFullName,
  checkPath,
  checkPullNumber,
  checkRef,
  checkSearchQuery,
  type CodeHost,
  CodeHostError,
  type CodeMatch,
  type CodeSearchResult,
  type Commit,
  matchText,
  type PullRequest,
  type PullRequestComment,
  type Repository,
  type Slice,
  type TreeEntry,
} from './codehost.port';
import { editLocalComment, gitDirOf, postLocalComment, readPullRecord, toPullRequest } from './local-pull-requests';

export interface LocalGitOptions {
  /** The directory holding `{owner}/{repo}` repositories. */
  root: string;
  /** Per `git` invocation (default 10 s). */
  timeoutMs?: number;
}

/** At most this many repositories are listed under a root (a bound on one listing's cost). */
export const MAX_LOCAL_REPOSITORIES = 10_000;
/** Output of one `git` invocation past which it is stopped. */
const MAX_OUTPUT = 16 * 1024 * 1024;
/** Output of one `git grep` read (past it the search stops and says it was cut). */
const MAX_GREP_OUTPUT = 1024 * 1024;

export class LocalGitCodeHost implements CodeHost {
  private readonly root: string;
  private readonly timeoutMs: number;

  constructor(options: LocalGitOptions) {
    this.root = path.resolve(options.root);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async listRepositories(offset: number, limit: number): Promise<Slice<Repository>> {
    const names = await this.repositoryNames();
    const page = names.slice(offset, offset + limit);
    const items = await Promise.all(page.map((name) => this.describe(name)));
    return { items, next: offset + limit < names.length ? offset + limit : null };
  }

  async getRepository(fullName: string): Promise<Repository> {
    await this.repoDir(fullName);
    return this.describe(fullName);
  }

  async listBranches(fullName: string, offset: number, limit: number): Promise<Slice<string>> {
    const out = await this.git(await this.repoDir(fullName), ['for-each-ref', '--sort=refname', '--format=%(refname:lstrip=2)', 'refs/heads/']);
    const branches = lines(out);
    return { items: branches.slice(offset, offset + limit), next: offset + limit < branches.length ? offset + limit : null };
  }

  async resolveRef(fullName: string, ref: string): Promise<string | null> {
    const dir = await this.repoDir(fullName);
    try {
      return (await this.git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${checkRef(ref)}^{commit}`])).trim() || null;
    } catch (error) {
      if (error instanceof GitExit && error.exitCode === 1) return null;
      throw error;
    }
  }

  async isAncestor(fullName: string, ancestor: string, descendant: string): Promise<boolean> {
    const dir = await this.repoDir(fullName);
    const [a, d] = await Promise.all([this.resolveRef(fullName, ancestor), this.resolveRef(fullName, descendant)]);
    if (a === null || d === null) return false;
    try {
      await this.git(dir, ['merge-base', '--is-ancestor', a, d]);
      return true;
    } catch (error) {
      // Exit 1 is git's "no"; anything else is a fault.
      if (error instanceof GitExit && error.exitCode === 1) return false;
      throw error;
    }
  }

  async commitsBetween(fullName: string, base: string, head: string, limit: number): Promise<Commit[]> {
    const dir = await this.repoDir(fullName);
    const [b, h] = await Promise.all([this.resolveRef(fullName, base), this.resolveRef(fullName, head)]);
    if (h === null) throw new CodeHostError('NOT_FOUND', `'${head}' names no commit in ${fullName}`);
    if (b === null) throw new CodeHostError('NOT_FOUND', `'${base}' names no commit in ${fullName}`);
    return parseLog(await this.git(dir, ['log', `--max-count=${Math.max(0, Math.floor(limit))}`, LOG_FORMAT, `${b}..${h}`]));
  }

  async listDirectory(fullName: string, ref: string, directory: string): Promise<TreeEntry[]> {
    const dir = await this.repoDir(fullName);
    const commit = await this.commitOf(fullName, ref);
    const prefix = checkPath(directory);
    // `-z`: names are NUL-terminated and never quoted, whatever characters they hold.
    const out = await this.git(dir, ['ls-tree', '-z', commit, '--', prefix === '' ? '.' : `${prefix}/`]);
    const entries = out.split('\0').filter(Boolean).map((record): TreeEntry => {
      const tab = record.indexOf('\t');
      const [, type] = record.slice(0, tab).split(' ');
      const entryPath = record.slice(tab + 1);
      return { name: path.posix.basename(entryPath), path: entryPath, type: type === 'tree' ? 'dir' : 'file' };
    });
    if (entries.length === 0 && prefix !== '') throw new CodeHostError('NOT_FOUND', `${fullName} has no directory '${prefix}' at ${ref}`);
    return entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  }

  async readFile(fullName: string, ref: string, filePath: string, maxBytes: number): Promise<{ text: string; truncated: boolean } | null> {
    const dir = await this.repoDir(fullName);
    const commit = await this.commitOf(fullName, ref);
    const object = `${commit}:${checkPath(filePath)}`;
    let size: number;
    try {
      size = Number((await this.git(dir, ['cat-file', '-s', object])).trim());
    } catch (error) {
      if (error instanceof GitExit && error.exitCode === 128) return null;
      throw error;
    }
    if ((await this.git(dir, ['cat-file', '-t', object])).trim() !== 'blob') return null;
    const bytes = await this.gitBytes(dir, ['cat-file', 'blob', object], Math.min(size, maxBytes));
    return { text: bytes.toString('utf8'), truncated: size > maxBytes };
  }

  async listCommits(fullName: string, ref: string, limit: number): Promise<Commit[]> {
    const dir = await this.repoDir(fullName);
    const commit = await this.commitOf(fullName, ref);
    return parseLog(await this.git(dir, ['log', `--max-count=${Math.max(0, Math.floor(limit))}`, LOG_FORMAT, commit]));
  }

  async searchCode(fullName: string, query: string, options: { maxMatches: number; path?: string }): Promise<CodeSearchResult> {
    const dir = await this.repoDir(fullName);
    const needle = checkSearchQuery(query);
    const prefix = options.path === undefined ? '' : checkPath(options.path);
    const { defaultBranch } = await this.describe(fullName);
    const commit = defaultBranch === '' ? null : await this.resolveRef(fullName, defaultBranch);
    if (commit === null) return { matches: [], truncated: false }; // an empty repository holds nothing to find
    // `-F` fixed strings (no pattern engine sees the query), `-e` so a query starting with `-` is not an
    // option, `--literal-pathspecs` so a path is never pathspec magic, `-I` skips binary files, `-z`
    // keeps paths verbatim. Output past MAX_GREP_OUTPUT stops git (the search is then cut).
    const args = ['--literal-pathspecs', 'grep', '-z', '-n', '-I', '-i', '-F', '--no-color', '--full-name', '-e', needle, commit, '--', ...(prefix === '' ? [] : [prefix])];
    let out: Buffer;
    try {
      out = await this.gitBytes(dir, args, MAX_GREP_OUTPUT + 1);
    } catch (error) {
      if (error instanceof GitExit && error.exitCode === 1) return { matches: [], truncated: false }; // git grep's "nothing found"
      throw error;
    }
    const matches: CodeMatch[] = [];
    let truncated = out.length > MAX_GREP_OUTPUT;
    const records = out.subarray(0, MAX_GREP_OUTPUT).toString('utf8').split('\n');
    // The last record may be cut mid-line when the output was cut: it is dropped.
    if (truncated) records.pop();
    for (const record of records) {
      if (record === '') continue;
      if (matches.length >= options.maxMatches) {
        truncated = true;
        break;
      }
      // `<commit>:<path>\0<line>\0<text>`
      const [where, line, ...text] = record.split('\0');
      matches.push({ path: where.slice(commit.length + 1), line: Number(line), text: matchText(text.join('\0')) });
    }
    return { matches, truncated };
  }

  // ------------------------------------------------------------------ internals

  private async commitOf(fullName: string, ref: string): Promise<string> {
    const commit = await this.resolveRef(fullName, ref);
    if (commit === null) throw new CodeHostError('NOT_FOUND', `'${ref}' names no commit in ${fullName}`);
    return commit;
  }

  /** Read from the HEAD file itself: one repository of a listing costs a file read, not a process. */
  private async describe(fullName: string): Promise<Repository> {
    const dir = path.join(this.root, ...fullName.split('/'));
    const headFile = fs.existsSync(path.join(dir, '.git')) ? path.join(dir, '.git', 'HEAD') : path.join(dir, 'HEAD');
    const head = await fs.promises.readFile(headFile, 'utf8').catch(() => '');
    // `ref: refs/heads/main`; a detached HEAD (a bare sha) has no default branch to name.
    const defaultBranch = head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length).trim() : '';
    // Nothing under a local root is published anywhere.
    return { fullName, defaultBranch, private: true };
  }

  /** `owner/repo` names of the git repositories under the root, ordered, at most MAX_LOCAL_REPOSITORIES. */
  private async repositoryNames(): Promise<string[]> {
    const names: string[] = [];
    for (const owner of await subdirectories(this.root)) {
      for (const repo of await subdirectories(path.join(this.root, owner))) {
        if (names.length >= MAX_LOCAL_REPOSITORIES) break;
        if (isGitDirectory(path.join(this.root, owner, repo))) names.push(`${owner}/${repo}`);
      }
    }
    return names.sort();
  }

  /** The repository's directory, inside the root (symbolic links included), or NOT_FOUND. */
  private async repoDir(fullName: string): Promise<string> {
    const [owner, repo] = checkFullName(fullName);
    const dir = path.join(this.root, owner, repo);
    let real: string;
    try {
      real = await fs.promises.realpath(dir);
    } catch {
      throw new CodeHostError('NOT_FOUND', `repository ${fullName} not found`);
    }
    const root = await fs.promises.realpath(this.root).catch(() => this.root);
    if (!real.startsWith(root + path.sep) || !isGitDirectory(real)) throw new CodeHostError('NOT_FOUND', `repository ${fullName} not found`);
    return real;
  }

  private git(dir: string, args: string[]): Promise<string> {
    return this.gitBytes(dir, args, MAX_OUTPUT).then((b) => b.toString('utf8'));
  }

  /** Runs git in `dir`, keeping at most `maxBytes` of its output (more stops it). */
  private gitBytes(dir: string, args: string[], maxBytes: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        // The operator named this root; git's ownership check would refuse a root owned by another user.
        ['-c', `safe.directory=${dir}`, '-C', dir, ...args],
        { encoding: 'buffer', timeout: this.timeoutMs, maxBuffer: Math.max(1, maxBytes), env: { PATH: process.env.PATH ?? '', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } },
        (error, stdout) => {
          if (!error) return resolve(stdout);
          const code = (error as NodeJS.ErrnoException & { code?: unknown }).code;
          if (code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve(stdout.subarray(0, maxBytes));
          if (error.killed) return reject(new CodeHostError('UNAVAILABLE', `git ${args[0]} took longer than ${this.timeoutMs} ms`));
          if (typeof code === 'number') return reject(new GitExit(code, args[0]));
          reject(new CodeHostError('UNAVAILABLE', `git ${args[0]} could not run: ${error.message}`));
        },
      );
      child.stdin?.end();
    });
  }

  // ------------------------------------------------------------------ pull requests (local-pull-requests.ts)

  async getPullRequest(fullName: string, number: number): Promise<PullRequest> {
    const gitDir = gitDirOf(await this.repoDir(fullName));
    const record = await readPullRecord(gitDir, checkPullNumber(number));
    if (!record) throw new CodeHostError('NOT_FOUND', `${fullName} has no pull request #${number}`);
    const live = record.state === 'open' ? await this.resolveRef(fullName, record.head).catch(() => null) : null;
    return toPullRequest(fullName, record, live);
  }

  async postComment(fullName: string, number: number, body: string): Promise<PullRequestComment> {
    return postLocalComment(gitDirOf(await this.repoDir(fullName)), fullName, checkPullNumber(number), body);
  }

  async editComment(fullName: string, commentId: string, body: string): Promise<PullRequestComment> {
    return editLocalComment(gitDirOf(await this.repoDir(fullName)), fullName, commentId, body);
  }
}

/** git ran and exited non-zero; callers that expect a given code turn it into an answer. */
class GitExit extends CodeHostError {
  constructor(
    readonly exitCode: number,
    command: string,
  ) {
    super('UNAVAILABLE', `git ${command} failed (exit ${exitCode})`);
  }
}

async function subdirectories(dir: string): Promise<string[]> {
  try {
    const entries = await fs.promises.readdir(dir, { withFileTypes: true });
    return entries.filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.')).map((e) => e.name);
  } catch {
    return [];
  }
}

/** A work tree (has `.git`) or a bare repository (has `HEAD` and `objects`). */
function isGitDirectory(dir: string): boolean {
  return fs.existsSync(path.join(dir, '.git')) || (fs.existsSync(path.join(dir, 'HEAD')) && fs.existsSync(path.join(dir, 'objects')));
}

function lines(out: string): string[] {
  return out.split('\n').filter((l) => l.length > 0);
}

const LOG_FORMAT = '--format=%H%x00%s%x00%an%x00%aI';

function parseLog(out: string): Commit[] {
  return lines(out).map((line) => {
    const [sha, subject, author, time] = line.split('\0');
    return { sha, subject, author, time: new Date(time).toISOString() };
  });
}
