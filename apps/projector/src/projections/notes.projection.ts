import { notesApi } from '@svc/contracts/notes/notes.contract';
import { noteSpec } from '@svc/domain/notes/note.resource';
import { resourceProjection } from '@svc/infrastructure/projection/resource.projection';

export const notesProjection = resourceProjection(noteSpec, notesApi);
