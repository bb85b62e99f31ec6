import { describe, expect, it } from 'vitest';
import { inputState } from '../../src/fake-slack/element-state.ts';

const select = {
  type: 'static_select',
  action_id: 'reply_to',
  options: [{ text: { type: 'plain_text', text: 'First' }, value: 'c1' }],
};

describe('an input’s state, as Slack sends it in view.state.values', () => {
  it('reads a select left at its placeholder, or a date emptied, as nothing chosen', () => {
    // The workbench page sends '' for both; Slack sends null.
    expect(inputState(select, '')).toEqual({ type: 'static_select', selected_option: null });
    expect(inputState({ ...select, initial_option: select.options[0] }, '')).toEqual({
      type: 'static_select',
      selected_option: null,
    });
    expect(inputState({ type: 'datepicker', initial_date: '2026-12-01' }, '')).toEqual({
      type: 'datepicker',
      selected_date: null,
    });
  });

  it('keeps a choice, the initial option when nothing is given, and refuses an option never offered', () => {
    expect(inputState(select, 'c1')).toEqual({ type: 'static_select', selected_option: select.options[0] });
    expect(inputState({ ...select, initial_option: select.options[0] }, undefined)).toEqual({
      type: 'static_select',
      selected_option: select.options[0],
    });
    expect(() => inputState(select, 'forged')).toThrow(/no option forged/);
  });
});
