import { GitHubIssuesTracker } from '@svc/infrastructure/integrations/tracker/github-issues.tracker';
import { githubWebhooks } from '@svc/infrastructure/integrations/tracker/github-webhooks';
import { FakeGitHubIssues } from '../support/fake-github-issues';
import { githubDelivery, issueEvent } from '../support/github-issue-events';
import { describeTrackerContract } from './tracker.contract';

const TOKEN = 'ghp_tracker_contract_token';
const PROJECT = 'acme/ops';

describeTrackerContract('GitHub Issues (@octokit/rest against a local server answering as GitHub documents)', async () => {
  const fake = new FakeGitHubIssues(TOKEN, [PROJECT]);
  const apiUrl = await fake.start();
  return {
    tracker: (options = {}) => new GitHubIssuesTracker({ connection: 'connections/issues', repository: options.project ?? PROJECT, token: options.token ?? TOKEN, apiUrl }),
    project: PROJECT,
    token: TOKEN,
    tickets: () => (fake.issues.get(PROJECT) ?? []).map((i) => i.title),
    requestCount: () => fake.requests.length,
    set: ({ disabled, rateLimited }) => {
      if (disabled !== undefined) {
        if (disabled) fake.issuesDisabled.add(PROJECT);
        else fake.issuesDisabled.delete(PROJECT);
      }
      if (rateLimited !== undefined) fake.rateLimited = rateLimited;
    },
    webhooks: githubWebhooks,
    delivery: (secret) => githubDelivery(issueEvent(PROJECT, 'opened', 7, 'Checkout is down'), secret),
    close: () => fake.stop(),
  };
});
