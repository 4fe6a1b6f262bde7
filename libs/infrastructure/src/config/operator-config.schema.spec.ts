import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, loadOperatorConfig, operatorConfigJsonSchema, parseOperatorConfig } from './operator-config';
import { NO_INTEGRATIONS } from './integrations-config';

const ROOT = path.resolve(__dirname, '../../../..');

function problems(raw: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseOperatorConfig(raw, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('operator configuration: every problem at once, unknown keys refused', () => {
  it('a typo such as api_key is an error naming the path and the known keys, not a member without keys', () => {
    const error = problems({ organizations: [{ id: 'acme', members: [{ user: 'alice', roles: ['admin'], api_key: ['alice-key:pw'] }] }] });
    expect(error.message).toBe(
      'operator configuration: organizations[0].members[0].api_key is not a known field (known: user, roles, api_keys)',
    );
  });

  it('reports each problem of the file with its path, in one error', () => {
    const error = problems({
      organisations: [],
      organizations: [
        { id: 'Acme Corp', members: 'alice' },
        {
          id: 'globex',
          members: [{ user: 'gina', api_keys: ['gina-key:${env:GINA_SECRET}', 'no-colon'] }],
          connections: [{ id: 'db', type: 'CONNECTION_TYPE_SQLDB', details: 'host=db', tools: [{ tool: 'TOOL_SQLDB_QUERY', enabled: 'yes' }] }],
          services: [{ id: 'checkout', display_name: 'C', colour: 'red' }],
        },
      ],
      bearer_issuers: [{ audience: 'svc' }],
    });
    expect(error.issues.map((i) => i.path)).toEqual([
      'organizations[0].id',
      'organizations[0].members',
      'organizations[1].members[0].api_keys[0]',
      'organizations[1].members[0].api_keys[1]',
      'organizations[1].connections[0].details',
      'organizations[1].connections[0].tools[0].enabled',
      'organizations[1].services[0].colour',
      'bearer_issuers[0].issuer',
      'bearer_issuers[0].organizations',
      'organisations',
    ]);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('operator configuration: 10 problems');
    expect(lines.slice(1)).toEqual([
      '  organizations[0].id must match ^[a-z0-9][a-z0-9-]{0,62}$',
      '  organizations[0].members must be a list',
      '  organizations[1].members[0].api_keys[0]: environment variable GINA_SECRET is not set (referenced by the configuration)',
      '  organizations[1].members[0].api_keys[1] must be "username:password"',
      '  organizations[1].connections[0].details must be a mapping',
      '  organizations[1].connections[0].tools[0].enabled must be true or false',
      expect.stringMatching(/^ {2}organizations\[1\]\.services\[0\]\.colour is not a field the catalog takes \(known: id, display_name, /),
      '  bearer_issuers[0].issuer must be a non-empty string',
      '  bearer_issuers[0].organizations must list the organizations this issuer may sign in to (required)',
      '  organisations is not a known field (known: organizations, workload_issuers, bearer_issuers, machine_credentials, integrations)',
    ]);
  });

  it('duplicates are named where the second one is', () => {
    expect(problems({ organizations: [{ id: 'a' }, { id: 'b' }, { id: 'a' }] }).message).toBe(
      "operator configuration: organizations[2].id: organization 'a' appears twice",
    );
    expect(
      problems({
        organizations: [
          { id: 'a', members: [{ user: 'u', api_keys: ['k:1'] }] },
          { id: 'b', service_accounts: [{ id: 's', api_keys: ['k:2'] }] },
        ],
      }).message,
    ).toBe("operator configuration: organizations[1].service_accounts[0].api_keys[0]: API key 'k' appears twice; key usernames are global");
  });

  it('the file itself must be a mapping; an empty file is an empty configuration', () => {
    expect(problems('organizations: acme').message).toBe('operator configuration: the file must be a mapping');
    expect(problems([]).message).toBe('operator configuration: the file must be a mapping');
    expect(parseOperatorConfig(null, {})).toEqual({ organizations: [], workloadIssuers: [], bearerIssuers: [], machineCredentials: [], integrations: NO_INTEGRATIONS });
  });

  it('takes lowerCamelCase spellings of multi-word keys too, but not both spellings at once', () => {
    const config = parseOperatorConfig(
      { organizations: [{ id: 'acme', displayName: 'Acme', serviceAccounts: [{ id: 'service-accounts/ci', apiKeys: ['ci-key:pw'] }] }] },
      {},
    );
    expect(config.organizations[0]).toMatchObject({ displayName: 'Acme', serviceAccounts: [{ id: 'ci', roles: [], apiKeys: [{ keyId: 'ci-key', secret: 'pw' }] }] });
    expect(problems({ organizations: [{ id: 'acme', display_name: 'A', displayName: 'B' }] }).message).toBe(
      'operator configuration: organizations[0].displayName: give display_name or displayName, not both',
    );
  });

  it('keeps what the file leaves out at its documented default', () => {
    const config = parseOperatorConfig(
      {
        organizations: [{ id: 42, members: [{ user: 'users/bob' }], connections: [{ id: 'pd', type: 'CONNECTION_TYPE_PAGER', tools: [{ tool: 'T' }] }] }],
        bearer_issuers: [{ issuer: 'https://idp.example', organizations: ['42'] }],
      },
      {},
    );
    expect(config.organizations[0]).toMatchObject({
      id: '42',
      displayName: '42',
      members: [{ user: 'bob', roles: [], apiKeys: [] }],
      connections: [{ id: 'pd', displayName: 'pd', description: '', details: {}, tools: [{ tool: 'T', enabled: true }] }],
    });
    expect(config.bearerIssuers).toEqual([{ issuer: 'https://idp.example', audience: undefined, publicKeyPem: '', orgClaim: 'org', organizations: ['42'] }]);
    expect(config.organizations[0].roles).toEqual([]);
  });

  it('the example of config/svc-config.yaml is valid once its secrets are in the environment', () => {
    const file = path.join(ROOT, 'config/svc-config.yaml');
    expect(() => loadOperatorConfig(file, {})).toThrow(/api_keys\[0\]: environment variable ALICE_API_SECRET is not set/);
    const config = loadOperatorConfig(file, { ALICE_API_SECRET: 'a', DEPLOYER_API_SECRET: 'd' });
    expect(config.organizations.map((o) => o.id)).toEqual(['acme']);
  });
});

describe('operator configuration: issuers are bound to organizations', () => {
  const orgs = [{ id: 'acme' }, { id: 'globex' }];
  const bearer = (extra: Record<string, unknown>) => ({ issuer: 'https://idp.example', audience: 'svc', ...extra });

  it('binds each bearer and workload issuer to the organizations it lists', () => {
    const config = parseOperatorConfig(
      {
        organizations: orgs,
        bearer_issuers: [bearer({ organizations: ['acme'] }), { issuer: 'https://idp.globex', organizations: ['globex'] }],
        workload_issuers: [{ issuer: 'https://workload.example', organizations: ['acme', 'globex'] }],
      },
      {},
    );
    expect(config.bearerIssuers.map((b) => [b.issuer, b.organizations])).toEqual([
      ['https://idp.example', ['acme']],
      ['https://idp.globex', ['globex']],
    ]);
    expect(config.workloadIssuers).toEqual([{ issuer: 'https://workload.example', publicKeyPem: '', organizations: ['acme', 'globex'] }]);
  });

  it('an issuer without organizations, or with an empty list, is an error naming the entry', () => {
    expect(problems({ organizations: orgs, bearer_issuers: [bearer({})], workload_issuers: [{ issuer: 'https://w' }] }).message).toBe(
      [
        'operator configuration: 2 problems',
        '  workload_issuers[0].organizations must list the organizations this issuer may mint session tokens for (required)',
        '  bearer_issuers[0].organizations must list the organizations this issuer may sign in to (required)',
      ].join('\n'),
    );
    expect(problems({ organizations: orgs, bearer_issuers: [bearer({ organizations: [] })] }).message).toBe(
      'operator configuration: bearer_issuers[0].organizations must list at least one organization this issuer may sign in to',
    );
  });

  it('an organization the file does not declare is an error (a typo binds to nothing, or to someone else later)', () => {
    expect(problems({ organizations: orgs, workload_issuers: [{ issuer: 'https://w', organizations: ['acme', 'acmee'] }] }).message).toBe(
      "operator configuration: workload_issuers[0].organizations[1]: organization 'acmee' of issuer 'https://w' is not declared in this file",
    );
    expect(problems({ organizations: orgs, bearer_issuers: [bearer({ organizations: ['Acme'] })] }).message).toBe(
      'operator configuration: bearer_issuers[0].organizations[0] must match ^[a-z0-9][a-z0-9-]{0,62}$',
    );
  });

  it('an organization has at most one identity provider, and an issuer appears once', () => {
    expect(
      problems({ organizations: orgs, bearer_issuers: [bearer({ organizations: ['acme'] }), { issuer: 'https://idp.other', organizations: ['globex', 'acme'] }] })
        .message,
    ).toBe(
      "operator configuration: bearer_issuers[1].organizations[1]: organization 'acme' is already served by bearer issuer 'https://idp.example'; an organization has at most one identity provider",
    );
    expect(problems({ organizations: orgs, workload_issuers: [{ issuer: 'https://w', organizations: ['acme'] }, { issuer: 'https://w', organizations: ['globex'] }] }).message).toBe(
      "operator configuration: workload_issuers[1].issuer: issuer 'https://w' appears twice",
    );
  });

  it('several workload issuers may serve one organization (a proof creates no identity)', () => {
    const config = parseOperatorConfig(
      { organizations: orgs, workload_issuers: [{ issuer: 'https://a', organizations: ['acme'] }, { issuer: 'https://b', organizations: ['acme'] }] },
      {},
    );
    expect(config.workloadIssuers.map((w) => w.organizations)).toEqual([['acme'], ['acme']]);
  });
});

describe('operator configuration: declared roles and member IDs', () => {
  it('reads roles with their defaults', () => {
    const config = parseOperatorConfig(
      { organizations: [{ id: 'acme', roles: [{ id: 'responder', permissions: ['KNOWLEDGE_WRITE'], default: true }, { id: 'roles/viewer', display_name: 'Viewer', description: 'reads' }] }] },
      {},
    );
    expect(config.organizations[0].roles).toEqual([
      { id: 'responder', displayName: 'responder', description: '', permissions: ['KNOWLEDGE_WRITE'], isDefault: true },
      { id: 'viewer', displayName: 'Viewer', description: 'reads', permissions: [], isDefault: false },
    ]);
  });

  it('an unknown permission, a malformed ID, admin or a non-boolean default are errors naming the entry', () => {
    const error = problems({
      organizations: [{ id: 'acme', roles: [{ id: 'a', permissions: ['KNOWLEDGE_WRITE', 'EVERYTHING'] }, { id: '-x' }, { id: 'admin' }, { id: 'c', default: 'yes' }] }],
    });
    expect(error.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}organizations\[0\]\.roles\[0\]\.permissions\[1\]: unknown permission 'EVERYTHING'; known: ROLES_WRITE, /),
      expect.stringMatching(/^ {2}organizations\[0\]\.roles\[1\]\.id: role ID '-x' must be/),
      '  organizations[0].roles[2].id: admin is the system role of every organization; it cannot be declared',
      '  organizations[0].roles[3].default must be true or false',
    ]);
  });

  it('two roles marked default, or one ID twice, are errors', () => {
    const error = problems({ organizations: [{ id: 'acme', roles: [{ id: 'a', default: true }, { id: 'b', default: true }, { id: 'a' }] }] });
    expect(error.message.split('\n').slice(1)).toEqual([
      "  organizations[0].roles[1].default: roles 'a' and 'b' are both marked default; at most one may be",
      "  organizations[0].roles[2].id: role 'a' appears twice",
    ]);
  });

  it('a configured user ID follows the bearer subject rules', () => {
    expect(problems({ organizations: [{ id: 'acme', members: [{ user: '*' }, { user: 'al\u200bice' }] }] }).issues.map((i) => i.path)).toEqual([
      'organizations[0].members[0].user',
      'organizations[0].members[1].user',
    ]);
  });
});

describe('operator configuration: the published JSON Schema', () => {
  it('docs/operator-config.schema.json is the schema the parser uses (regenerate: npm run -s svc -- config schema > docs/operator-config.schema.json)', () => {
    const committed = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/operator-config.schema.json'), 'utf8')) as unknown;
    expect(committed).toEqual(operatorConfigJsonSchema());
  });

  it('states that unknown keys are refused and what is required', () => {
    const schema = operatorConfigJsonSchema() as { additionalProperties: boolean; properties: { organizations: { anyOf: Array<{ items?: { required: string[]; additionalProperties: boolean } }> } } };
    expect(schema.additionalProperties).toBe(false);
    const organization = schema.properties.organizations.anyOf.find((s) => s.items)?.items;
    expect(organization).toMatchObject({ required: ['id'], additionalProperties: false });
  });
});
