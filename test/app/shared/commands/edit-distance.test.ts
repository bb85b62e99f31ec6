import { describe, expect, it } from 'vitest';
import { editDistance } from '../../../../src/app/shared/commands/edit-distance.ts';
import { seededRandom } from '../../../../src/service/demo/demo-generator.ts';
import { editDistance as boundedDistance } from '../../../../src/service/store/word-suggestions.ts';

describe('editDistance (command words)', () => {
  it('counts a swap of two neighbouring letters as one edit, as the service’s search does', () => {
    expect(editDistance('serach', 'search')).toBe(1);
    expect(editDistance('pipline', 'pipeline')).toBe(1);
    expect(editDistance('research', 'search')).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', 'abc')).toBe(0);
  });

  it('answers what the service’s bounded distance answers, over random words', () => {
    const random = seededRandom(11);
    const word = () =>
      Array.from({ length: Math.floor(random() * 9) }, () => 'abcde'[Math.floor(random() * 5)]).join('');
    for (let index = 0; index < 3000; index++) {
      const [a, b] = [word(), word()];
      expect(editDistance(a, b), `${a} ${b}`).toBe(boundedDistance(a, b, 20));
    }
  });
});
