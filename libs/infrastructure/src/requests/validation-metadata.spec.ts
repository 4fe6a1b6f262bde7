import { IsInt, IsString, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata';

const failing = (object: object): string[] => validateSync(object).map((e) => e.property).sort();

describe('memoized class-validator rules', () => {
  beforeAll(() => memoizeValidationMetadata());

  it('validates as before, every time', () => {
    class Note {
      @IsString() title!: string;
      @IsInt() size!: number;
    }
    const bad = Object.assign(new Note(), { title: 3, size: 'x' });
    const good = Object.assign(new Note(), { title: 't', size: 1 });
    expect(failing(bad)).toEqual(['size', 'title']);
    expect(failing(bad)).toEqual(['size', 'title']);
    expect(failing(good)).toEqual([]);
  });

  it('sees rules registered after a class was first validated, on the class and on its subclasses', () => {
    class Base {
      @IsString() name!: string;
    }
    expect(failing(Object.assign(new Base(), { name: 1 }))).toEqual(['name']);
    // Declared later: its decorators register new rules, including an inherited property's.
    class Derived extends Base {
      @IsInt() count!: number;
    }
    expect(failing(Object.assign(new Derived(), { name: 1, count: 'x' }))).toEqual(['count', 'name']);
    expect(failing(Object.assign(new Base(), { name: 'ok', count: 'x' }))).toEqual([]);
    IsInt()(Base.prototype, 'late');
    expect(failing(Object.assign(new Base(), { name: 'ok', late: 'x' }))).toEqual(['late']);
  });
});
