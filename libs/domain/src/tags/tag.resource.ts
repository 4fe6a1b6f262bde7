/**
 * Tags (spec part 3, "Tag"): labels for agents. User tags are ordinary resources; system tags (IDs
 * `svc:...`) are seeded by the service in every organization, always grey, and read-only.
 */
import { invalid } from '../shared/domain-error';
import type { ResourceSpec } from '../shared/resource';

/** Reserved for system tags; clients cannot create IDs with it (any letter case, to avoid look-alikes). */
export const SYSTEM_TAG_PREFIX = 'svc:';
/** "System tags are always shown grey." */
export const SYSTEM_TAG_COLOR = '#808080';

export interface SystemTag {
  id: string;
  displayName: string;
  description: string;
}

/**
 * The system tags every organization has (the spec names none; our set, see docs/decisions.md).
 * Removing one here deletes it from every organization at the next configuration apply.
 */
export const SYSTEM_TAGS: readonly SystemTag[] = [
  { id: 'svc:auto-created', displayName: 'Auto-created', description: 'Created by the service rather than by a person.' },
  { id: 'svc:deploy-monitor', displayName: 'Deploy monitor', description: 'Watches deployments and evaluates their outcome.' },
  { id: 'svc:investigation', displayName: 'Investigation', description: 'Runs investigations.' },
];

/** The stored form of a system tag: what its seed makes it, nothing a user chose. */
export function systemTagResource(tag: SystemTag): Record<string, unknown> {
  return { displayName: tag.displayName, description: tag.description, color: SYSTEM_TAG_COLOR, system: true };
}

const COLOR = /^#[0-9A-Fa-f]{6}$/;

export const tagSpec: ResourceSpec = {
  kind: 'Tag',
  collection: 'tags',
  idRequired: true,
  // Spec: alphanumeric, hyphens, underscores, colons; `svc:` IDs cannot be created. The 128 cap is ours.
  idPattern: /^(?!svc:)[a-z0-9_:-]{1,128}$/i,
  idRule:
    "tag_id must contain only letters, digits, hyphens, underscores and colons (at most 128 characters), and IDs starting with 'svc:' are reserved for system tags",
  // `system` is output only: set on create (false) and by the service's seeds (true).
  settable: ['displayName', 'description', 'color'],
  // No UndeleteTag in the spec.
  undeletable: false,
  onCreate: (tag) => ({ ...tag, system: false }),
  validate(tag) {
    if (tag.color !== undefined && (typeof tag.color !== 'string' || !COLOR.test(tag.color))) {
      throw invalid(`color of tag '${tag.name}' must have the form #RRGGBB, got '${String(tag.color)}'`);
    }
  },
  readOnly: (tag) => (tag.system === true ? `tag '${tag.name}' is a system tag and cannot be changed` : undefined),
};
