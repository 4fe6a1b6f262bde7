import { execFile } from 'node:child_process';
import * as path from 'node:path';

export interface OpenApiValidation {
  valid: boolean;
  version: string;
  errors: unknown[];
}

/** Validates `document` with @seriousme/openapi-schema-validator in a child node process (it is ESM only). */
export function validateOpenApi(document: unknown): Promise<OpenApiValidation> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [path.join(__dirname, 'openapi-validator.mjs')], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as OpenApiValidation),
    );
    child.stdin?.end(JSON.stringify(document));
  });
}
