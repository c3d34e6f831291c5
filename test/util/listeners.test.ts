import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Listeners } from '../../src/util/listeners.js';

describe('Listeners (the one listener fan-out)', () => {
  it('calls every listener in the order added, with the arguments', () => {
    const l = new Listeners<[name: string, t: number]>();
    const got: string[] = [];
    l.add((n, t) => got.push(`a ${n} ${t}`));
    l.add((n, t) => got.push(`b ${n} ${t}`));
    l.emit('x', 1);
    expect(got).toEqual(['a x 1', 'b x 1']);
    expect(l.size).toBe(2);
  });

  it('a listener that unsubscribes itself during an emit does not make the next one miss it', () => {
    const l = new Listeners<[number]>();
    const got: string[] = [];
    const offA = l.add((v) => {
      got.push(`a${v}`);
      offA();
    });
    l.add((v) => got.push(`b${v}`));
    l.emit(1);
    l.emit(2);
    expect(got).toEqual(['a1', 'b1', 'b2']);
  });

  it('a listener added during an emit hears the next event, not the current one; unsubscribing twice removes once', () => {
    const l = new Listeners<[number]>();
    const got: number[] = [];
    const late = (v: number) => got.push(100 + v);
    let added = false;
    l.add((v) => {
      got.push(v);
      if (!added) {
        added = true;
        l.add(late);
      }
    });
    const offLate2 = l.add(late);
    offLate2();
    offLate2();
    l.emit(1);
    l.emit(2);
    expect(got).toEqual([1, 2, 102]);
  });

  it('without isolate, a throwing listener propagates and the later ones are not called', () => {
    const l = new Listeners<[]>();
    const got: string[] = [];
    l.add(() => {
      throw new Error('boom');
    });
    l.add(() => got.push('after'));
    expect(() => l.emit()).toThrow('boom');
    expect(got).toEqual([]);
  });

  it('with isolate, a throwing listener neither reaches the emitter nor stops the later ones', () => {
    const l = new Listeners<[]>({ isolate: true });
    const got: string[] = [];
    l.add(() => {
      throw new Error('boom');
    });
    l.add(() => got.push('after'));
    expect(() => l.emit()).not.toThrow();
    expect(got).toEqual(['after']);
  });

  it('matches a naive list model under random add/remove/emit sequences', () => {
    type Op = { op: 'add' } | { op: 'remove'; k: number } | { op: 'emit' };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.constant({ op: 'add' as const }),
      fc.nat(20).map((k) => ({ op: 'remove' as const, k })),
      fc.constant({ op: 'emit' as const }),
    );
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 60 }), (ops) => {
        const l = new Listeners<[number]>();
        const heard: string[] = [];
        const expected: string[] = [];
        const model: number[] = []; // ids, in order
        const offs: (() => void)[] = [];
        let next = 0;
        let event = 0;
        for (const o of ops) {
          if (o.op === 'add') {
            const id = next++;
            model.push(id);
            offs.push(l.add((e) => heard.push(`${id}:${e}`)));
          } else if (o.op === 'remove') {
            if (offs.length === 0) continue;
            const id = o.k % offs.length;
            offs[id]!();
            const at = model.indexOf(id);
            if (at >= 0) model.splice(at, 1);
          } else {
            event++;
            for (const id of model) expected.push(`${id}:${event}`);
            l.emit(event);
          }
        }
        expect(heard).toEqual(expected);
        expect(l.size).toBe(model.length);
      }),
    );
  });
});
