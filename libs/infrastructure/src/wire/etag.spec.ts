import { contentEtag, withEtag } from './etag';

describe('contentEtag', () => {
  const service = { name: 'services/a', displayName: 'A', labels: { x: '1', y: '2' }, updateTime: '2024-01-01T00:00:00Z' };

  it('ignores key order and the etag itself', () => {
    const reordered = { updateTime: service.updateTime, labels: { y: '2', x: '1' }, displayName: 'A', name: 'services/a' };
    expect(contentEtag(reordered)).toBe(contentEtag(service));
    expect(contentEtag(withEtag(service))).toBe(contentEtag(service));
    expect(withEtag(service).etag).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('changes with any field, nested ones included', () => {
    expect(contentEtag({ ...service, displayName: 'B' })).not.toBe(contentEtag(service));
    expect(contentEtag({ ...service, labels: { x: '1', y: '3' } })).not.toBe(contentEtag(service));
    expect(contentEtag({ ...service, deleteTime: '2024-02-01T00:00:00Z' })).not.toBe(contentEtag(service));
  });
});
