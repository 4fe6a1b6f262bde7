import { tagsApi } from '@svc/contracts/tags/tags.contract';
import { tagSpec } from '@svc/domain/tags/tag.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const tagsProjection = resourceProjection(tagSpec, tagsApi);
