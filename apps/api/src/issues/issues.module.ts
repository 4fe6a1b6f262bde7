import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { ISSUE_VALIDATION_SERVICE, VALIDATE_ISSUE_EVIDENCE, ValidateIssueEvidenceRequest, ValidateIssueEvidenceResponse } from '@svc/contracts/issues/issues.contract';
import { skippedValidation, validateEvidenceByRules, type EvidenceValidation } from '@svc/domain/issues/evidence-validation';
import { MethodRegistry } from '../http/method-registry';
import { defineMethod } from '../resource-kit/method-builders';

/**
 * Which evidence validator answers (docs/operations.md, "Issue evidence validation"):
 * `SVC_ISSUE_VALIDATOR=rules` the rule-based one; unset or `off` none, and every answer is SKIPPED.
 */
export function evidenceValidator(env: NodeJS.ProcessEnv = process.env): (request: ValidateIssueEvidenceRequest) => EvidenceValidation {
  const choice = env.SVC_ISSUE_VALIDATOR ?? 'off';
  if (choice === 'rules') return (request) => validateEvidenceByRules(request.issues, request.evidenceContext);
  if (choice === 'off' || choice === '') return () => skippedValidation('No evidence validator is configured; the proposed issues were not checked.');
  throw new Error(`SVC_ISSUE_VALIDATOR must be 'rules' or 'off', got '${choice}'`);
}

/**
 * svc.issues.v2.IssueValidationService/ValidateIssueEvidence: advisory, never creates, updates or
 * deletes anything. Issues themselves (Get, List) are a kit resource of the issues area.
 */
@Injectable()
class IssueValidationMethods implements OnModuleInit {
  constructor(private readonly registry: MethodRegistry) {}

  onModuleInit(): void {
    const validate = evidenceValidator();
    this.registry.register(
      defineMethod({ service: ISSUE_VALIDATION_SERVICE }, VALIDATE_ISSUE_EVIDENCE, { request: ValidateIssueEvidenceRequest, response: ValidateIssueEvidenceResponse }, 'read', async ({ request }) =>
        validate(request),
      ),
    );
  }
}

@Module({ providers: [IssueValidationMethods] })
export class IssuesModule {}
