import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { notesApi } from '@svc/contracts/notes/notes.contract';
import { noteSpec } from '@svc/domain/notes/note.resource';
import { ResourceKit } from '../resource-kit/resource-kit';

/** svc.notes.v1.NotesService: a plain resource, entirely the resource kit. */
@Injectable()
class NotesMethods implements OnModuleInit {
  constructor(private readonly kit: ResourceKit) {}

  onModuleInit(): void {
    this.kit.register(noteSpec, notesApi);
  }
}

@Module({ providers: [NotesMethods] })
export class NotesModule {}
