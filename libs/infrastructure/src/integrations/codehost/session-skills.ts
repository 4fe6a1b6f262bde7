/**
 * The skills a session sees on `/run/skills` (spec part 1, "Skills bundle"): the built-in library,
 * then the skills of every enabled, undeleted skills bundle of the session's organization (the spec
 * exposes bundles "to the organization's agents" and names no narrower scope), read live from each
 * bundle's code host at its branch (skills.ts: at most MAX_SKILLS per bundle, MAX_SKILL_BYTES per
 * file). Best effort: a bundle that cannot be read is reported by name and the turn goes on. Each
 * bundle's skills are cached for a short while, keyed by the bundle's read-model position, so an
 * update of the bundle is seen at once and a push to its repository within the cache time; the list of
 * bundles is read every turn, so a deleted or disabled bundle's skills are gone from the next turn.
 */
import { BUILT_IN_SKILLS } from '@svc/domain/skillsbundles/builtin-skills';
import { DomainError } from '@svc/domain/shared/domain-error';
import { SecretBox, SecretUnavailableError } from '../../config/secrets';
import { docId } from '../../projection/projection';
import type { Doc, ReadStore } from '../../read-store/read-store.port';
import type { RuntimeSkill, RuntimeSkills } from '../agent-runtime/agent-runtime.port';
import { codeHostOfDocument } from './codehost-of';
import { CodeHostError } from './codehost.port';
import { discoverSkills, skillsSourceOf, type Skill } from './skills';

/** Bundles read for one session (in name order); the others are reported as not read. */
export const MAX_SESSION_BUNDLES = 20;
/** Skills one session is offered, built-ins included; past it the rest are reported as left out. */
export const MAX_SESSION_SKILLS = 300;
/** How long a bundle's skills are reused (SVC_SKILLS_CACHE_MS). */
export const DEFAULT_SKILLS_CACHE_MS = 30_000;
/** Bytes of SKILL.md text the cache holds at most, all organizations together; the oldest entries go first. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
const CONCURRENT_BUNDLES = 4;
/** Each code host call of a skills read (a `git` run, an HTTP request). */
const HOST_TIMEOUT_MS = 10_000;
const MAX_MESSAGE = 300;

export interface SessionSkillsOptions {
  reads: ReadStore;
  secrets: SecretBox;
  env?: NodeJS.ProcessEnv;
  cacheMs?: number;
  now?: () => number;
  log?: (line: string) => void;
}

type Outcome = { skills: Skill[] } | { error: string };

interface CacheEntry {
  at: number;
  bytes: number;
  outcome: Outcome;
}

export class SessionSkills {
  private readonly cache = new Map<string, CacheEntry>();
  private cachedBytes = 0;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SessionSkillsOptions) {
    this.cacheMs = options.cacheMs ?? DEFAULT_SKILLS_CACHE_MS;
    this.now = options.now ?? Date.now;
  }

  /** The cache time from SVC_SKILLS_CACHE_MS (milliseconds, 0 switches the cache off). */
  static cacheMsFrom(env: NodeJS.ProcessEnv = process.env): number {
    const text = env.SVC_SKILLS_CACHE_MS;
    if (text === undefined || text === '') return DEFAULT_SKILLS_CACHE_MS;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) throw new Error(`SVC_SKILLS_CACHE_MS must be a whole number of milliseconds, got '${text}'`);
    return value;
  }

  /** The skills of a session of `org`. Throws only when the read store fails (the turn is then retried). */
  async forOrganization(org: string): Promise<RuntimeSkills> {
    const bundles = await this.options.reads
      .collection('skills-bundles')
      .find({ _org: org, deleteTime: { $exists: false }, enabled: { $ne: false } }, { sort: { name: 1 }, limit: MAX_SESSION_BUNDLES + 1 });
    const read = bundles.slice(0, MAX_SESSION_BUNDLES);
    const outcomes = await mapBounded(read, CONCURRENT_BUNDLES, (bundle) => this.bundleSkills(org, bundle));
    const skills: RuntimeSkill[] = BUILT_IN_SKILLS.map((s) => ({ ...s, source: 'builtin' }));
    const taken = new Set(skills.map((s) => s.name));
    const unavailable: RuntimeSkills['unavailable'] = [];
    let left = 0;
    for (const [i, bundle] of read.entries()) {
      const outcome = outcomes[i];
      const name = String(bundle.name);
      if ('error' in outcome) {
        unavailable.push({ bundle: name, message: outcome.error });
        continue;
      }
      // A built-in (already removed by discoverSkills) or an earlier bundle (name order) keeps a clashing name.
      for (const skill of outcome.skills) {
        if (taken.has(skill.name)) continue;
        if (skills.length >= MAX_SESSION_SKILLS) {
          left++;
          continue;
        }
        taken.add(skill.name);
        skills.push({ name: skill.name, description: skill.description, body: skill.body, source: name });
      }
    }
    if (left > 0) unavailable.push({ bundle: 'skills-bundles/-', message: `${left} skill(s) left out: a session is offered at most ${MAX_SESSION_SKILLS}` });
    if (bundles.length > MAX_SESSION_BUNDLES) {
      unavailable.push({ bundle: String(bundles[MAX_SESSION_BUNDLES].name), message: `not read: a session reads at most ${MAX_SESSION_BUNDLES} bundles (in name order)` });
    }
    return { skills, unavailable };
  }

  private async bundleSkills(org: string, bundle: Doc): Promise<Outcome> {
    const key = `${org}|${String(bundle.name)}|${String(bundle._pos)}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < this.cacheMs) return hit.outcome;
    const outcome = await this.load(org, bundle);
    this.remember(key, outcome);
    return outcome;
  }

  private async load(org: string, bundle: Doc): Promise<Outcome> {
    const source = skillsSourceOf(bundle);
    try {
      const connection = await this.options.reads.collection('connections').findOne({ _id: docId(org, source.connection) });
      if (!connection || connection.deleteTime) return { error: `its connection '${source.connection}' is not configured` };
      const host = codeHostOfDocument(connection, this.options.secrets, { timeoutMs: HOST_TIMEOUT_MS, env: this.options.env });
      return { skills: await discoverSkills(host, source) };
    } catch (error) {
      // These messages are written to name the repository or the setting, never a credential.
      if (error instanceof CodeHostError || error instanceof DomainError || error instanceof SecretUnavailableError) return { error: clip(error.message) };
      this.options.log?.(`skills of ${String(bundle.name)} (${org}) could not be read: ${clip(error instanceof Error ? error.message : String(error))}`);
      return { error: 'its repository could not be read' };
    }
  }

  private remember(key: string, outcome: Outcome): void {
    if (this.cacheMs === 0) return;
    const previous = this.cache.get(key);
    if (previous) this.cachedBytes -= previous.bytes;
    this.cache.delete(key);
    const bytes = 'skills' in outcome ? outcome.skills.reduce((sum, s) => sum + s.body.length + s.description.length, 0) : 0;
    this.cache.set(key, { at: this.now(), bytes, outcome });
    this.cachedBytes += bytes;
    // A Map iterates in insertion order: the first entries are the oldest.
    for (const [oldKey, entry] of this.cache) {
      if (this.cachedBytes <= MAX_CACHED_BYTES && this.now() - entry.at < this.cacheMs) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= entry.bytes;
    }
  }
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

/** `work` over `items` with at most `limit` running at once; results in the items' order. */
async function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
