import { describe, expect, it } from 'vitest';
import { ResponsesConnectionHistory } from './responses-connection-history.ts';

const turn = (text: string) => ({ input: [{ role: 'user', content: text }], output: [] });

describe('ResponsesConnectionHistory', () => {
  it('keeps the most recently finished turns up to its limit', () => {
    const history = new ResponsesConnectionHistory(2);
    history.remember('resp_1', turn('one'));
    history.remember('resp_2', turn('two'));
    history.remember('resp_3', turn('three'));
    expect(history.get('resp_1')).toBeUndefined();
    expect(history.get('resp_2')).toEqual(turn('two'));
    expect(history.get('resp_3')).toEqual(turn('three'));
  });
});
