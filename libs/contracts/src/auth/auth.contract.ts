// class-transformer's @Type reads design-time metadata: whoever loads a DTO needs the Reflect polyfill first.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';

/** Which scheme accepted a request (docs/decisions.md, "Authentication"). */
export const AUTHENTICATORS = ['basic', 'bearer', 'session'] as const;
export type Authenticator = (typeof AUTHENTICATORS)[number];

export class AuthIdentity {
  /** Credential source: `users/{id}` or `service-accounts/{id}`. */
  @IsString() actor!: string;
  /** Effective entity the request acts as. */
  @IsString() subject!: string;
  @IsString() organization!: string;
  /** `agents/{agent}/sessions/{session}` for an agent session token, else empty. */
  @IsString() session!: string;
}

export class AuthEvidence {
  @IsIn(AUTHENTICATORS) authenticator!: Authenticator;
  @IsString() provider!: string;
  @IsString() externalIdentity!: string;
}

/** GetAuth: who the credential is, and the evidence for it (spec part 1). */
export class GetAuthResponse {
  @ValidateNested() @Type(() => AuthIdentity) identity!: AuthIdentity;
  @ValidateNested() @Type(() => AuthEvidence) evidence!: AuthEvidence;
  /** The caller's effective permission keys (spec part 1, "permissions field"). */
  @IsOptional() @IsString({ each: true }) permissions?: string[];
}

/** MintAgentSessionToken: an agent session token (ES256 JWT) and when it expires (RFC 3339). */
export class MintAgentSessionTokenResponse {
  @IsString() token!: string;
  @IsString() expiresAt!: string;
}
