// Nest loaded this before (through method-registry); the DTO decorators read design-time type metadata.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString } from 'class-validator';
import { Int64 } from '@svc/contracts/shared/requests';
import { parseRequest } from './parse-request';

class Thing {
  @IsOptional() @IsString() title?: string;
  @IsOptional() @IsObject() labels?: Record<string, unknown>;
}
class ThingRequest {
  @IsOptional() @IsString() orderBy?: string;
  @Int64() pageSize?: number;
  @IsOptional() @IsObject() @Type(() => Thing) thing?: Thing;
}
const parse = (body: unknown) => parseRequest({ request: ThingRequest }, body);

describe('request DTOs', () => {
  it('keeps keys named like Object.prototype members as data, wherever they are', async () => {
    const labels = { toString: 'a', valueOf: 'b', hasOwnProperty: 'c', constructor: 'd', isPrototypeOf: { constructor: 'e' } };
    const request = await parse({ thing: { labels }, surprise: { constructor: 1, toString: 2 } });
    expect(request.thing?.labels).toEqual(labels);
    expect(Object.keys(request.thing!.labels!)).toEqual(expect.arrayContaining(Object.keys(labels)));
    expect((request as unknown as { surprise: unknown }).surprise).toEqual({ constructor: 1, toString: 2 });
  });

  it('drops such keys as unknown fields of a DTO, where `constructor` would switch validation off', async () => {
    class Required {
      @IsString() name!: string;
    }
    await expect(parseRequest({ request: Required }, { constructor: [], toString: 1 })).rejects.toMatchObject({ message: 'name must be a string' });
    const request = await parse({ thing: { constructor: 'x', title: 't' } });
    expect(Object.hasOwn(request.thing!, 'constructor')).toBe(false);
  });

  it('reads JSON null on a request field as unset, and keeps nulls inside free-form objects', async () => {
    const request = await parse({ order_by: null, page_size: null, thing: { title: null, labels: { a: null } } });
    expect(request).not.toHaveProperty('orderBy');
    expect(request).not.toHaveProperty('pageSize');
    expect(request.thing).not.toHaveProperty('title');
    expect(request.thing?.labels).toEqual({ a: null });
  });

  it('takes a 64-bit integer as a JSON number or a decimal string, nothing else', async () => {
    expect((await parse({ page_size: 5 })).pageSize).toBe(5);
    expect((await parse({ page_size: '12' })).pageSize).toBe(12);
    for (const bad of [true, '0x10', '1e3', ' 7', '1.5', 2.5, [3], '99999999999999999999', 2 ** 60]) {
      await expect(parse({ page_size: bad })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/page_size/) });
    }
  });

  it('checks the input limits before transforming', async () => {
    await expect(parse({ order_by: '\ud800' })).rejects.toMatchObject({ message: expect.stringMatching(/well-formed/) });
    await expect(parse(JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`))).rejects.toMatchObject({ message: expect.stringMatching(/nested/) });
  });
});
