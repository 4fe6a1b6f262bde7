/**
 * CreateInvestigation's inputs beyond the resource: the seed (`initial_activities`, user-text
 * activities with `content` and role `USER`), the title generated from it, and the artifact
 * references. Pure rules; each error names the item.
 */
import { parse as parseMediaType } from 'content-type';
import { invalid } from '../shared/domain-error';
import { isPlainObject } from '../shared/json-path';

export const MAX_TITLE = 80;
export const MAX_SEED_CHARACTERS = 256 * 1024;
const ARTIFACT_NAME = /^[A-Za-z0-9._-][A-Za-z0-9._\/-]{0,255}$/;
const SHA256 = /^[0-9a-f]{64}$/;
const MAX_CONTENT_TYPE = 256;
/**
 * The content codings a download may declare (the IANA HTTP Content Coding registry's common ones):
 * anything else would be sent to browsers as a `Content-Encoding` they cannot decode.
 */
export const CONTENT_ENCODINGS: readonly string[] = ['gzip', 'x-gzip', 'deflate', 'br', 'zstd', 'compress', 'identity'];

/** Whether `value` is a media type with parameters by RFC 9110 section 8.3.1 (content-type's strict parser; linear). */
export function isMediaType(value: string): boolean {
  if (value.length > MAX_CONTENT_TYPE) return false;
  try {
    parseMediaType(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The seed's texts, in order. An activity is `{user: {text: {content, role: "USER"}}}` (an `@type`
 * is allowed and ignored); `text` is accepted for `content`, as session messages spell it.
 */
export function seedTexts(activities: readonly unknown[]): string[] {
  let total = 0;
  return activities.map((activity, i) => {
    const field = `initial_activities[${i}]`;
    const user = isPlainObject(activity) ? activity.user : undefined;
    const text = isPlainObject(user) ? user.text : undefined;
    if (!isPlainObject(text)) throw invalid(`${field} must be a user text activity: {"user": {"text": {"content": "...", "role": "USER"}}}`);
    const content = text.content ?? text.text;
    if (typeof content !== 'string' || content.trim() === '') throw invalid(`${field}.user.text.content must be a non-empty string`);
    if (text.role !== undefined && text.role !== 'USER') throw invalid(`${field}.user.text.role must be USER, got '${String(text.role)}'`);
    total += content.length;
    if (total > MAX_SEED_CHARACTERS) throw invalid(`initial_activities hold more than ${MAX_SEED_CHARACTERS} characters of text`);
    return content;
  });
}

/**
 * The title of an investigation created without display_name: the first non-blank line of the
 * first seed text, whitespace collapsed, at most 80 characters (cut at a word boundary where one
 * falls in the last 20, then `…`). No seed, no title.
 */
export function titleFromSeed(texts: readonly string[]): string | undefined {
  const first = texts[0];
  if (first === undefined) return undefined;
  const line = first.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const collapsed = line.replace(/\s+/g, ' ').trim();
  if (collapsed.length <= MAX_TITLE) return collapsed;
  const room = Array.from(collapsed).slice(0, MAX_TITLE - 1).join('');
  const space = room.lastIndexOf(' ');
  return `${(space >= MAX_TITLE - 20 ? room.slice(0, space) : room).trimEnd()}…`;
}

export interface ArtifactReference {
  name: string;
  sha256: string;
  contentType: string;
  contentEncoding?: string;
}

/** `artifacts`: each a name unique in the request, a sha256, a content type and an optional encoding. */
export function artifactReferences(raw: readonly unknown[]): ArtifactReference[] {
  const names = new Set<string>();
  return raw.map((item, i) => {
    const field = `artifacts[${i}]`;
    if (!isPlainObject(item)) throw invalid(`${field} must be an object with name, sha256, content_type and content_encoding`);
    const { name, sha256, contentType, contentEncoding } = item;
    if (typeof name !== 'string' || !ARTIFACT_NAME.test(name) || name.split('/').some((s) => s === '' || s === '.' || s === '..')) {
      throw invalid(`${field}.name must be 1 to 256 letters, digits, '.', '_', '-' or '/' (no empty, '.' or '..' segment), got '${String(name)}'`);
    }
    if (names.has(name)) throw invalid(`${field}.name '${name}' is named twice`);
    names.add(name);
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) throw invalid(`${field}.sha256 must be 64 lower-case hexadecimal digits`);
    if (typeof contentType !== 'string' || !isMediaType(contentType)) {
      throw invalid(`${field}.content_type must be a media type (RFC 9110) such as 'text/plain; charset=utf-8', at most ${MAX_CONTENT_TYPE} characters, got ${JSON.stringify(String(contentType ?? '').slice(0, MAX_CONTENT_TYPE))}`);
    }
    if (contentEncoding !== undefined && contentEncoding !== null && contentEncoding !== '' && (typeof contentEncoding !== 'string' || !CONTENT_ENCODINGS.includes(contentEncoding))) {
      throw invalid(`${field}.content_encoding must be one of ${CONTENT_ENCODINGS.join(', ')}, got ${JSON.stringify(String(contentEncoding).slice(0, 64))}`);
    }
    const encoding = typeof contentEncoding === 'string' && contentEncoding !== '' ? { contentEncoding } : {};
    return { name, sha256, contentType, ...encoding };
  });
}
