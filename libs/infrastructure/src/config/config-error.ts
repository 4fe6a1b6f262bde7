/** A configuration that cannot be applied; the message names the offending path. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(`operator configuration: ${message}`);
    this.name = 'ConfigError';
  }
}
