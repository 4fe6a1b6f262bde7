import { GitHubCodeHost } from '@svc/infrastructure/integrations/codehost/github.codehost';
import { LocalGitCodeHost } from '@svc/infrastructure/integrations/codehost/local-git.codehost';
import { FakeGitHub } from '../support/fake-github';
import { GitFixture } from '../support/git-fixture';
import { describeCodeHostContract } from './codehost.contract';

describeCodeHostContract('local git', async ({ fixture }) => ({ host: new LocalGitCodeHost({ root: fixture.root }), close: async () => undefined }));

describeCodeHostContract('GitHub (@octokit/rest against a local server answering as GitHub documents)', async ({ fixture }) => {
  const github = new FakeGitHub(fixture.root, 'ghp_contract');
  const apiUrl = await github.start();
  return { host: new GitHubCodeHost({ apiUrl, token: 'ghp_contract' }), close: () => github.stop() };
});

describe('GitHub code host: credentials', () => {
  it('answers PERMISSION_DENIED for a refused token, and the error never holds the token', async () => {
    const fixture = new GitFixture();
    fixture.repo('acme/app').commit('first');
    const github = new FakeGitHub(fixture.root, 'ghp_right');
    const apiUrl = await github.start();
    try {
      const host = new GitHubCodeHost({ apiUrl, token: 'ghp_wrong_secret_value' });
      const error = (await host.getRepository('acme/app').then(
        () => new Error('no error'),
        (e: unknown) => e,
      )) as Error;
      expect(error).toMatchObject({ code: 'PERMISSION_DENIED' });
      expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain('ghp_wrong_secret_value');
      expect(github.requests[0].authorization).toBe('token ghp_wrong_secret_value');
    } finally {
      await github.stop();
      fixture.remove();
    }
  });
});
