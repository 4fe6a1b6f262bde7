import { parseUpdateMask, type UpdateMaskSpec } from './field-mask';
import { invalidMessage } from '@svc/domain/shared/testing';

const spec: UpdateMaskSpec = {
  settable: ['displayName', 'description', 'labels', 'query', 'retention.days', 'retention.mode'],
  outputOnly: ['name', 'createTime', 'updateTime', 'query.status'],
  maps: ['labels'],
  objects: ['query'],
};


describe('parseUpdateMask', () => {
  it('distinguishes absent, "*" and explicit masks', () => {
    expect(parseUpdateMask(undefined, spec)).toBe('all-provided');
    expect(parseUpdateMask('', spec)).toBe('all-provided');
    expect(parseUpdateMask(' , ', spec)).toBe('all-provided');
    expect(parseUpdateMask([], spec)).toBe('all-provided');
    expect(parseUpdateMask('*', spec)).toBe('all');
    expect(parseUpdateMask(['*'], spec)).toBe('all');
  });

  it('refuses a mask that is neither a string nor a list of strings (INVALID_ARGUMENT, not a crash)', () => {
    for (const bad of [5, { paths: ['display_name'] }, [1], true]) {
      expect(invalidMessage(() => parseUpdateMask(bad as unknown as string, spec))).toMatch(/comma-separated/);
    }
  });

  it('converts snake_case, accepts camelCase, trims and deduplicates', () => {
    expect(parseUpdateMask(' display_name , description,displayName', spec)).toEqual({ paths: ['displayName', 'description'] });
    expect(parseUpdateMask(['display_name', 'description,labels'], spec)).toEqual({ paths: ['displayName', 'description', 'labels'] });
  });

  it('drops output-only paths silently', () => {
    expect(parseUpdateMask('name,create_time,display_name,query.status', spec)).toEqual({ paths: ['displayName'] });
    expect(parseUpdateMask('update_time', spec)).toEqual({ paths: [] });
  });

  it('allows nested paths under settable maps and objects', () => {
    expect(parseUpdateMask('labels.environment,labels.team_name', spec)).toEqual({ paths: ['labels.environment', 'labels.team_name'] });
    expect(parseUpdateMask('query.filter_text', spec)).toEqual({ paths: ['query.filterText'] });
    expect(parseUpdateMask('retention.days', spec)).toEqual({ paths: ['retention.days'] });
    expect(parseUpdateMask('retention', spec)).toEqual({ paths: ['retention.days', 'retention.mode'] });
  });

  it('rejects unknown paths', () => {
    expect(invalidMessage(() => parseUpdateMask('display_name,foo', spec))).toBe("update_mask: unknown field 'foo'");
    expect(invalidMessage(() => parseUpdateMask('description.x', spec))).toBe("update_mask: unknown field 'description.x'");
    expect(invalidMessage(() => parseUpdateMask('labels.', spec))).toBe("update_mask: unknown field 'labels.'");
    expect(invalidMessage(() => parseUpdateMask('*,display_name', spec))).toBe("update_mask: '*' must be the only path");
  });
});
