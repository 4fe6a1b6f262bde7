/**
 * Skills bundles (spec part 1, "Skills bundle"): configuration only, a code-host connection, an
 * `owner/repo`, a directory (default `skills`) and a branch (empty: the repository's default).
 */
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';

export const CODEHOST_CONNECTION_TYPE = 'CONNECTION_TYPE_CODEHOST';
export const DEFAULT_SKILLS_DIRECTORY = 'skills';

const CONNECTION_NAME = /^connections\/[^/]+$/;
/** `owner/repo`, each part a plain name; anchored, no backtracking. */
const REPOSITORY = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** A git ref as a user names one: nothing option-like, no range syntax (`..`) checked separately. */
const REF = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,254}$/;

export const skillsBundleSpec: ResourceSpec = {
  kind: 'SkillsBundle',
  collection: 'skills-bundles',
  // Spec: skills_bundle_id is required.
  idRequired: true,
  ...commonId('skills_bundle_id'),
  settable: ['displayName', 'connection', 'repository', 'directory', 'branch', 'enabled'],
  defaults: { enabled: true, directory: DEFAULT_SKILLS_DIRECTORY, branch: '' },
  undeletable: false,
  references: (bundle) => (typeof bundle.connection === 'string' && CONNECTION_NAME.test(bundle.connection) ? [bundle.connection] : []),
  validate(bundle, { refs, previous }) {
    const connection = bundle.connection;
    if (typeof connection !== 'string' || !CONNECTION_NAME.test(connection)) {
      throw invalid(`connection is required and must look like 'connections/{connection_id}', got '${String(connection ?? '')}'`);
    }
    const type = refs.get(connection)?.connectionType;
    // An update that keeps the connection does not re-judge it (the kit looks up only what changed).
    if (previous?.connection !== connection && type !== CODEHOST_CONNECTION_TYPE) throw invalid(`connection ${connection} is not a code-host connection (${String(type ?? 'unknown type')})`);
    checkRepository(bundle.repository);
    checkDirectory(bundle.directory);
    checkBranch(bundle.branch);
  },
};

export function checkRepository(repository: unknown): string {
  if (typeof repository !== 'string' || !REPOSITORY.test(repository) || repository.split('/').some((p) => p === '.' || p === '..')) {
    throw invalid(`repository is required and must be 'owner/repo', got '${String(repository ?? '').slice(0, 201)}'`);
  }
  return repository;
}

/** A repository-relative directory: no absolute path, no `.` or `..` segment. */
export function checkDirectory(directory: unknown): string {
  if (directory === undefined || directory === null || directory === '') return DEFAULT_SKILLS_DIRECTORY;
  if (typeof directory !== 'string' || directory.startsWith('/') || directory.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw invalid(`directory must be a path inside the repository, got '${String(directory).slice(0, 1024)}'`);
  }
  return directory;
}

export function checkBranch(branch: unknown): string {
  if (branch === undefined || branch === null || branch === '') return '';
  if (typeof branch !== 'string' || !REF.test(branch) || branch.includes('..') || branch.endsWith('.lock') || branch.endsWith('/')) {
    throw invalid(`branch must be a git ref, got '${String(branch).slice(0, 255)}'`);
  }
  return branch;
}
