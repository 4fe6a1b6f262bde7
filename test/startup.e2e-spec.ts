import { type Credentials, eventually, Stack, stopProcess } from './support/harness';

const NOTES = 'svc.notes.v1.NotesService';

describe('start-up layouts', () => {
  it('npm start with no SVC_CONFIG: a demo organization, its API key pair and curl line printed once (on stderr), working after a restart', async () => {
    const stack = await Stack.start({ layout: 'npm-start', config: null });
    try {
      const banner = stack.output.filter((chunk) => chunk.startsWith('[api!] ')).join('');
      const pair = /API key pair: ([^:\s]+):(\S+)/.exec(banner);
      expect(pair).not.toBeNull();
      const demo: Credentials = { username: pair![1], password: pair![2] };
      const curl = /curl -s -u '([^']+)' (\S+\/v1\/auth)/.exec(banner);
      expect(curl?.[1]).toBe(`${demo.username}:${demo.password}`);
      const viaCurlLine = await fetch(curl![2], { headers: { authorization: `Basic ${Buffer.from(curl![1]).toString('base64')}` } });
      expect(await viaCurlLine.json()).toMatchObject({ identity: { actor: 'users/demo', organization: 'demo' } });
      expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'hello', note: { display_name: 'Hello' } }, demo)).status).toBe(200);
      // stdout holds JSON log lines only, the api's and its projector child's, and never the secret.
      const stdout = stack.stdout('api');
      expect(stdout).not.toContain(demo.password);
      await eventually(async () => (stack.logLines('api').some((l) => l.name === 'projector') ? true : undefined));
      for (const line of stdout.split('\n').slice(0, -1).filter((l) => l.trim() !== '')) expect(() => JSON.parse(line) as unknown).not.toThrow();

      // The api forked the projector; both stop together and come back with the same credentials and data.
      await stack.stop();
      const again = await Stack.start({ layout: 'npm-start', config: null, dataDir: stack.dataDir });
      try {
        // The secret is printed when the organization is created, not on every start.
        const output = again.output.join('');
        expect(output).not.toContain(demo.password);
        expect(output).toContain(`Its API key pair (${demo.username}:...) was printed when it was created; it is kept in ${stack.dataDir}/demo-credentials.json`);
        const note = await again.rpc<{ note: { displayName: string } }>(`${NOTES}/GetNote`, { name: 'notes/hello' }, demo);
        expect(note.body.note.displayName).toBe('Hello');
      } finally {
        await again.stop();
      }
    } finally {
      await stack.destroy();
    }
  });

  it('api with the projector in-process serves the same API with read-your-writes', async () => {
    const stack = await Stack.start({ layout: 'inprocess' });
    try {
      expect(stack.processes).toHaveLength(1);
      expect((await stack.rpc(`${NOTES}/CreateNote`, { note_id: 'inproc', note: { tool_name: 'x' } })).status).toBe(200);
      const listed = await stack.rpc<{ notes: Array<{ name: string }> }>(`${NOTES}/ListNotes`, { filter: "tool_name = 'x'" });
      expect(listed.body.notes.map((n) => n.name)).toEqual(['notes/inproc']);
    } finally {
      await stack.destroy();
    }
  });

  it('health answers 503 until a projector runs, then 200', async () => {
    const stack = await Stack.start();
    try {
      const projector = stack.processes[0];
      await stopProcess(projector);
      // The heartbeat goes stale within a few seconds of the projector stopping.
      const deadline = Date.now() + 10_000;
      let status = 200;
      while (Date.now() < deadline && status === 200) {
        status = (await stack.request('GET', '/healthz', { as: null })).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(503);
      stack.startProjector();
      await stack.waitHealthy();
    } finally {
      await stack.destroy();
    }
  });
});
