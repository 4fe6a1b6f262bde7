/** Notes (spec part 2, "Note"): a plain resource; the only area rule is the shape of toolArgs. */
import { invalid } from '../shared/domain-error';
import { commonId, type ResourceSpec } from '../shared/resource';
import { isPlainObject } from '../shared/json-path';

export const noteSpec: ResourceSpec = {
  kind: 'Note',
  collection: 'notes',
  idRequired: true,
  // The spec gives no rule for note IDs; we apply the common one (wire convention 5) with a 128 cap.
  ...commonId('note_id'),
  settable: ['displayName', 'notes', 'description', 'toolName', 'toolArgs'],
  undeletable: false,
  validate(note) {
    // toolArgs holds the producing tool's named arguments: a JSON object, never a list or a scalar.
    if (note.toolArgs !== undefined && !isPlainObject(note.toolArgs)) {
      throw invalid(`tool_args of note '${note.name}' must be an object`);
    }
  },
};
