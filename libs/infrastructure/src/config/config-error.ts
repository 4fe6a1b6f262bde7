import { type ConfigIssue, showIssue } from './config-schema';

/** A configuration that cannot be applied; the message names each offending path, one per line. */
export class ConfigError extends Error {
  constructor(
    message: string,
    /** Every problem found, when the file was checked as a whole. */
    readonly issues: readonly ConfigIssue[] = [],
  ) {
    super(`operator configuration: ${message}`);
    this.name = 'ConfigError';
  }

  /** All the problems of a file in one error: one line each, so an operator fixes them in one go. */
  static of(issues: readonly ConfigIssue[]): ConfigError {
    const lines = issues.map(showIssue);
    const message = lines.length === 1 ? lines[0] : `${lines.length} problems\n${lines.map((l) => `  ${l}`).join('\n')}`;
    return new ConfigError(message, issues);
  }
}
