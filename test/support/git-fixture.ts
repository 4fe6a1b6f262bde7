/**
 * Real git repositories for the code host tests, made with the machine's own `git` under a temporary
 * root laid out as the local-git host reads it (`{root}/{owner}/{repo}`).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { editPullRequest, gitDirOf, listLocalComments, mergePullRequest, openPullRequest } from '@svc/infrastructure/integrations/codehost/local-pull-requests';

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Ada',
  GIT_AUTHOR_EMAIL: 'ada@example.com',
  GIT_COMMITTER_NAME: 'Ada',
  GIT_COMMITTER_EMAIL: 'ada@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: os.tmpdir(),
};

export class GitFixture {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-git-'));

  /** A repository with a work tree on `main`. */
  repo(fullName: string): GitRepo {
    const dir = path.join(this.root, ...fullName.split('/'));
    fs.mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    return new GitRepo(dir);
  }

  /** An empty bare repository (cheap; for paging). */
  bare(fullName: string): void {
    const dir = path.join(this.root, ...fullName.split('/'));
    fs.mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '--bare', '-b', 'main');
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

export class GitRepo {
  constructor(readonly dir: string) {}

  /** Writes the files and commits them; answers the new commit's sha. */
  commit(message: string, files: Record<string, string> = {}): string {
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(this.dir, name)), { recursive: true });
      fs.writeFileSync(path.join(this.dir, name), text);
    }
    git(this.dir, 'add', '-A');
    git(this.dir, 'commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  branch(name: string, from = 'HEAD'): void {
    git(this.dir, 'branch', name, from);
  }

  checkout(name: string): void {
    git(this.dir, 'checkout', '-q', name);
  }

  head(): string {
    return git(this.dir, 'rev-parse', 'HEAD').trim();
  }

  /** Merges `branch` into the checked-out branch with a merge commit; answers that commit. */
  merge(branch: string, message = `Merge branch '${branch}'`): string {
    git(this.dir, 'merge', '-q', '--no-ff', '-m', message, branch);
    return this.head();
  }

  /** Opens a pull request of `head` into `base` (the local-git host's records); answers its number. */
  async openPull(pull: { title: string; body?: string; head: string; base?: string; author?: { login: string; id: string } }): Promise<number> {
    const headSha = git(this.dir, 'rev-parse', pull.head).trim();
    const record = await openPullRequest(gitDirOf(this.dir), { ...pull, base: pull.base ?? 'main', headSha, author: pull.author ?? { login: 'ada', id: '583231' } });
    return record.number;
  }

  /** Records that pull request `number` landed as `mergeSha`. */
  async mergePull(number: number, mergeSha: string): Promise<void> {
    await mergePullRequest(gitDirOf(this.dir), number, mergeSha);
  }

  async editPull(number: number, change: { title?: string; body?: string }): Promise<void> {
    await editPullRequest(gitDirOf(this.dir), number, change);
  }

  comments(fullName: string, number: number) {
    return listLocalComments(gitDirOf(this.dir), fullName, number);
  }
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: ENV, encoding: 'utf8' });
}
