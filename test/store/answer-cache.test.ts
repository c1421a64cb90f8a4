import { describe, expect, it } from 'vitest';
import { AnswerCache, answerCacheOf, deepFreeze } from '../../src/store/answer-cache.js';

describe('AnswerCache', () => {
  it('counts entries by default and drops the least recently used first', () => {
    const c = new AnswerCache<string>(2);
    c.set('a', 'A');
    c.set('b', 'B');
    expect(c.get('a')).toBe('A'); // a is now the most recently used
    c.set('c', 'C');
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('A');
    expect(c.get('c')).toBe('C');
    expect(c.size).toBe(2);
  });

  it('weighs entries when asked, and a replaced entry stops counting', () => {
    const c = new AnswerCache<number[]>(10, (v) => v.length);
    c.set('six', [1, 2, 3, 4, 5, 6]);
    c.set('three', [1, 2, 3]);
    c.set('three', [1, 2, 3, 4]); // 6 + 4 = 10: still within the bound
    expect(c.size).toBe(2);
    c.set('one', [1]); // 11 > 10: the oldest (six) goes
    expect(c.get('six')).toBeUndefined();
    expect(c.get('three')).toEqual([1, 2, 3, 4]);
    expect(c.get('one')).toEqual([1]);
  });

  it('keeps one cache per combination of store instances, so another build starts empty', () => {
    const storeA = {};
    const storeB = {};
    const a = answerCacheOf<string>('t', 10, [storeA, null]);
    a.set('k', 'v');
    expect(answerCacheOf<string>('t', 10, [storeA, undefined]).get('k')).toBe('v');
    expect(answerCacheOf<string>('t', 10, [storeB, null]).get('k')).toBeUndefined();
    expect(answerCacheOf<string>('other', 10, [storeA, null]).get('k')).toBeUndefined();
  });

  it('freezes an answer all the way down', () => {
    const v = deepFreeze({ a: [{ b: 1 }] });
    expect(Object.isFrozen(v.a[0])).toBe(true);
    expect(() => {
      (v.a as unknown as unknown[]).push(2);
    }).toThrow();
  });
});
