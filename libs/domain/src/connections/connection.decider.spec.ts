import type { Actor } from '../shared/decider';
import { givenFor } from '../shared/testing';
import { OAUTH_CREDENTIALS } from './connection-credential';
import { type Connection, connectionDecider, type ConnectionCommand, type ConnectionEvent } from './connection.decider';

const given = givenFor(connectionDecider);
const actor: Actor = { org: 'acme', actor: 'users/alice', subject: 'users/alice', permissions: ['INTEGRATIONS_WRITE'], now: '2026-01-01T00:00:00.000Z' };
const hash = (c: string) => c.repeat(64);

const fromFile = (details: Record<string, unknown>, displayName = 'GitHub'): Connection => ({
  name: 'connections/gh',
  displayName,
  description: '',
  connectionType: 'CONNECTION_TYPE_CODEHOST',
  connectionDetails: details,
  toolConfigurations: [],
});
const configured = (c: Connection): ConnectionEvent => ({ type: 'ConnectionConfigured', data: { connection: c, createTime: actor.now } });
const configure = (c: Connection): ConnectionCommand => ({ type: 'ConfigureConnection', actor, connection: c });
const authorize = (o: Partial<Extract<ConnectionCommand, { type: 'AuthorizeConnection' }>> = {}): Extract<ConnectionCommand, { type: 'AuthorizeConnection' }> => ({
  type: 'AuthorizeConnection',
  actor,
  name: 'connections/gh',
  create: false,
  connectionType: 'CONNECTION_TYPE_CODEHOST',
  path: OAUTH_CREDENTIALS.codehost.path,
  sealedToken: 'enc:v2:sealed-1',
  details: { codehost: { provider: 'github' } },
  displayName: 'GitHub',
  stateId: 'state-1',
  issuedAtMs: 1000,
  ...o,
});
/** The events of a command on a history (the command must succeed). */
const decided = (history: ConnectionEvent[], command: ConnectionCommand) => connectionDecider.decide(command, history.reduce(connectionDecider.evolve, connectionDecider.initialState()));

describe('connection decider: OAuth credentials', () => {
  const file = fromFile({ codehost: { provider: 'github', api_url: 'https://gh.example' } });

  it('seals the token on the connection where the adapter reads it, naming the state', () => {
    const [event] = decided([configured(file)], authorize());
    expect(event).toMatchObject({
      type: 'ConnectionAuthorized',
      data: { created: false, connection: { connectionDetails: { codehost: { provider: 'github', api_url: 'https://gh.example', token: 'enc:v2:sealed-1' } } } },
    });
  });

  it('refuses a state used before, and one older than the last used', () => {
    const history = [configured(file), ...decided([configured(file)], authorize())];
    given(history).when(authorize({ sealedToken: 'enc:v2:other' })).thenFails('FAILED_PRECONDITION', /already used/);
    given(history).when(authorize({ stateId: 'state-0', issuedAtMs: 999 })).thenFails('FAILED_PRECONDITION', /already used/);
    expect(decided(history, authorize({ stateId: 'state-2', issuedAtMs: 2000 }))).toHaveLength(1);
  });

  it('creates a connection when the state says so, once', () => {
    const create = authorize({ create: true, name: 'connections/github-abc' });
    const events = decided([], create);
    expect(events[0]).toMatchObject({ type: 'ConnectionAuthorized', data: { created: true, connection: { name: 'connections/github-abc', connectionDetails: { codehost: { provider: 'github', token: 'enc:v2:sealed-1' } } } } });
    given(events).when(create).thenFails('FAILED_PRECONDITION', /already used/);
    given(events).when(authorize({ create: true, name: 'connections/github-abc', stateId: 'other', issuedAtMs: 5000 })).thenFails('ALREADY_EXISTS');
  });

  it('refuses a clear token, a missing connection and one of another type', () => {
    given([configured(file)]).when(authorize({ sealedToken: 'gho_clear' })).thenFails('INTERNAL');
    given([]).when(authorize()).thenFails('NOT_FOUND');
    given([configured(file)]).when(authorize({ connectionType: 'CONNECTION_TYPE_CHAT', path: OAUTH_CREDENTIALS.chat.path })).thenFails('INVALID_ARGUMENT');
  });

  it('re-applying the file keeps the OAuth token: unchanged appends nothing, another field keeps it over the new details', () => {
    const history = [configured(file), ...decided([configured(file)], authorize())];
    given(history).when(configure(file)).thenNothing();
    const renamed = fromFile({ codehost: { provider: 'github', api_url: 'https://gh.example' } }, 'GitHub (renamed)');
    const [event] = decided(history, configure(renamed));
    expect(event).toMatchObject({
      type: 'ConnectionReconfigured',
      data: { connection: { displayName: 'GitHub (renamed)', connectionDetails: { codehost: { token: 'enc:v2:sealed-1' } } }, configured: renamed },
    });
    // Applying the renamed file again changes nothing: what the file says is compared with what it said.
    given([...history, event]).when(configure(renamed)).thenNothing();
  });

  it('a file that now gives the token itself wins over the OAuth one', () => {
    const history = [configured(file), ...decided([configured(file)], authorize())];
    const withToken = fromFile({ codehost: { provider: 'github', api_url: 'https://gh.example', token: 'enc:v2:from-file' } });
    const [event] = decided(history, configure(withToken));
    expect(event).toEqual({ type: 'ConnectionReconfigured', data: { connection: withToken, updateTime: actor.now } });
    given([...history, event]).when(configure(withToken)).thenNothing();
  });
});

describe('connection decider: webhook tokens', () => {
  const pager: Connection = { name: 'connections/pd', displayName: 'PD', description: '', connectionType: 'CONNECTION_TYPE_PAGER', connectionDetails: {}, toolConfigurations: [] };
  const register = (h: string): ConnectionCommand => ({ type: 'RegisterWebhook', actor, name: 'connections/pd', kind: 'pager', connectionType: 'CONNECTION_TYPE_PAGER', tokenHash: h });

  it('keeps the newest two token hashes: the third registration retires the first', () => {
    let history: ConnectionEvent[] = [configured(pager)];
    for (const c of ['a', 'b']) {
      const events = decided(history, register(hash(c)));
      expect(events[0]).toMatchObject({ data: { tokenHash: hash(c), retiredTokenHashes: [] } });
      history = [...history, ...events];
    }
    given(history)
      .when(register(hash('c')))
      .thenState((state, events) => {
        expect(events[0]).toMatchObject({ data: { retiredTokenHashes: [hash('a')] } });
        expect(state.webhookTokens).toEqual([hash('c'), hash('b')]);
      });
  });

  it('records only a SHA-256, on an existing connection of the right type', () => {
    given([configured(pager)]).when(register('clear-token')).thenFails('INTERNAL');
    given([]).when(register(hash('a'))).thenFails('NOT_FOUND');
    given([configured(pager)]).when({ ...register(hash('a')), kind: 'incidentmgr', connectionType: 'CONNECTION_TYPE_INCIDENTMGR' } as ConnectionCommand).thenFails('INVALID_ARGUMENT');
  });
});
