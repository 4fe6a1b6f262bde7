import { camelToSnake, snakeToCamel, toCamelDeep, toSnakeDeep } from './casing';

describe('key casing', () => {
  it('converts single keys like protobuf JSON names', () => {
    expect(snakeToCamel('display_name')).toBe('displayName');
    expect(snakeToCamel('displayName')).toBe('displayName');
    expect(snakeToCamel('a_b_c')).toBe('aBC');
    expect(snakeToCamel('field_2')).toBe('field2');
    expect(snakeToCamel('_id')).toBe('_id');
    expect(camelToSnake('displayName')).toBe('display_name');
    expect(camelToSnake('display_name')).toBe('display_name');
    expect(camelToSnake('sloId')).toBe('slo_id');
    expect(camelToSnake('Kind')).toBe('kind');
    expect(camelToSnake('_id')).toBe('_id');
  });

  it('converts request bodies deeply, arrays included', () => {
    const body = {
      display_name: 'x',
      notification_policy: { channel_ids: ['a'], quiet_hours: [{ start_time: '1', endTime: '2' }] },
      '@type': 'type.googleapis.com/x',
      createTime: 't',
    };
    expect(toCamelDeep(body)).toEqual({
      displayName: 'x',
      notificationPolicy: { channelIds: ['a'], quietHours: [{ startTime: '1', endTime: '2' }] },
      '@type': 'type.googleapis.com/x',
      createTime: 't',
    });
    expect(toCamelDeep([{ a_b: 1 }, 2, null])).toEqual([{ aB: 1 }, 2, null]);
    expect(toCamelDeep('plain_string')).toBe('plain_string');
  });

  it('keeps keys verbatim under preserved paths, given in either case', () => {
    const body = {
      labels: { team_name: 'x', 'app.kubernetes.io/name': 'web' },
      deployment: { labels: { env_name: 'prod' }, deploy_time: 't' },
      items: [{ labels: { a_b: 1 }, item_id: 2 }],
      extra_data: { some_key: { nested_key: 1 } },
    };
    expect(toCamelDeep(body, { preserveKeysUnder: ['labels', 'deployment.labels', 'items.labels', 'extra_data'] })).toEqual({
      labels: { team_name: 'x', 'app.kubernetes.io/name': 'web' },
      deployment: { labels: { env_name: 'prod' }, deployTime: 't' },
      items: [{ labels: { a_b: 1 }, itemId: 2 }],
      extraData: { some_key: { nested_key: 1 } },
    });
    // Without the option, map keys are converted too.
    expect(toCamelDeep({ labels: { team_name: 'x' } })).toEqual({ labels: { teamName: 'x' } });
  });

  it('converts responses to snake_case for agent SLOs', () => {
    const slo = { name: 's', targetRatio: 0.9, recentRecords: [{ createTime: 't', goodCount: '5' }], labels: { teamName: 'x' } };
    expect(toSnakeDeep(slo, { preserveKeysUnder: ['labels'] })).toEqual({
      name: 's',
      target_ratio: 0.9,
      recent_records: [{ create_time: 't', good_count: '5' }],
      labels: { teamName: 'x' },
    });
  });

  it('leaves non-plain values alone and does not let __proto__ set the prototype', () => {
    const date = new Date(0);
    const out = toCamelDeep({ at_time: date }) as Record<string, unknown>;
    expect(out.atTime).toBe(date);
    const parsed: unknown = JSON.parse('{"__proto__": {"polluted_key": 1}, "a_b": 1}');
    const converted = toCamelDeep(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(converted)).toBe(Object.prototype);
    expect(Object.keys(converted)).toEqual(['__proto__', 'aB']);
    expect(({} as Record<string, unknown>).pollutedKey).toBeUndefined();
  });
});
