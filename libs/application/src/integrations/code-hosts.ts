/**
 * The code hosts of an organization, for the processes that act without a request (the post-deploy
 * reactor): its code-host connections from the read model, secrets opened here from the process's own
 * key, and the first whose host knows a repository. A host that does not answer throws, so a reactor
 * retries the event with backoff rather than deciding without it.
 */
import type { SecretBox } from '@svc/infrastructure/config/secrets';
import { CODEHOST_CONNECTION_TYPE, codeHostOfDocument } from '@svc/infrastructure/integrations/codehost/codehost-of';
import { CodeHostError, type CodeHost } from '@svc/infrastructure/integrations/codehost/codehost.port';
import type { ReadStore } from '@svc/infrastructure/read-store/read-store.port';

/** Code-host connections one lookup tries (ours: an organization has a handful). */
const MAX_CODE_HOSTS = 20;

export class CodeHosts {
  constructor(
    private readonly reads: ReadStore,
    private readonly secrets: SecretBox,
  ) {}

  /** The code host of `org` that has `repository`, or null when none of its connections does. */
  async hostFor(org: string, repository: string): Promise<CodeHost | null> {
    const connections = await this.reads
      .collection('connections')
      .find({ $and: [{ _org: org }, { connectionType: CODEHOST_CONNECTION_TYPE }, { deleteTime: { $exists: false } }] }, { sort: { name: 1 }, limit: MAX_CODE_HOSTS });
    for (const doc of connections) {
      let host: CodeHost;
      try {
        host = codeHostOfDocument(doc, this.secrets);
      } catch {
        continue; // a connection without a usable host (or whose secret cannot be opened here) cannot answer
      }
      try {
        await host.getRepository(repository);
        return host;
      } catch (error) {
        if (error instanceof CodeHostError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_ARGUMENT' || error.code === 'PERMISSION_DENIED')) continue;
        throw error;
      }
    }
    return null;
  }
}
