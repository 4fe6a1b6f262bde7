/**
 * The trigger's configuration variants and its document shape (camelCase, as documents store them),
 * free of validation decorators so the domain and the projector can import them alone.
 */

/** Configuration variant keys as stored and answered (requests may spell them snake_case). */
export const TRIGGER_VARIANTS = ['cron', 'manual', 'row', 'postDeploy', 'chatMessagePosted', 'chatAgentMentioned'] as const;
export type TriggerVariant = (typeof TRIGGER_VARIANTS)[number];

/** Variants InvokeTrigger's chat arm accepts. */
export const CHAT_VARIANTS: readonly TriggerVariant[] = ['chatMessagePosted', 'chatAgentMentioned'];

export interface CronConfiguration {
  /** A cron expression (5 fields, or 6 with seconds), parsed by cron-parser. */
  schedule: string;
  /** IANA time zone the schedule is read in (default `UTC`). */
  timezone: string;
}
export type ManualConfiguration = Record<string, never>;
export interface RowConfiguration {
  tableName: string;
  /** A boolean SQL-style expression over the row's columns (the WHERE clause of `SELECT * FROM t`). */
  predicate: string;
  /** Duration (`"300s"`): at most one session per this span. */
  cooldown: string;
}
export interface PostDeployConfiguration {
  /** `owner/repo` */
  repository: string;
  environment: string;
  sha: string;
  /** Duration (`"600s"`) between the deployment's success and the session. */
  delay: string;
}
export interface ChatMessagePostedConfiguration {
  /** `connections/{id}` of a CONNECTION_TYPE_CHAT connection. */
  chatConnection: string;
  /** `#name` channels; the bot must be a member of each. */
  channels: string[];
  /** Default true. */
  includeThreadReplies: boolean;
}
export interface ChatAgentMentionedConfiguration {
  /** `connections/{connection}/chat-handles/{handle}` */
  chatHandle: string;
  /** `#name` channels; empty means every channel the bot is in. */
  channels: string[];
}

/** Exactly one key is set. */
export interface TriggerConfiguration {
  cron?: CronConfiguration;
  manual?: ManualConfiguration;
  row?: RowConfiguration;
  postDeploy?: PostDeployConfiguration;
  chatMessagePosted?: ChatMessagePostedConfiguration;
  chatAgentMentioned?: ChatAgentMentionedConfiguration;
}

/** A trigger as the read model (`triggers` collection) and the API hold it. */
export interface TriggerDocument {
  name: string;
  displayName?: string;
  description?: string;
  agent: string;
  configuration: TriggerConfiguration;
  enabled?: boolean;
  /** Extension: resource names the trigger concerns (`services/x`), for `associated_resources:` filters. */
  associatedResources?: string[];
  createTime: string;
  updateTime: string;
  deleteTime?: string;
}
