/**
 * What a person does with an element, as Slack describes it to the app: the action of a click or
 * a choice (`actions[]`), and an input's state in `view.state.values`.
 */
// biome-ignore lint/suspicious/noExplicitAny: loose Block Kit JSON.
type Element = any;
/** A select's option as the app sent it (`{ text, value }`). */
// biome-ignore lint/suspicious/noExplicitAny: as above.
type SlackOption = any;

/** What a person chose in an element: a button's value, a select's or overflow's option, a date. */
export interface Choice {
  value?: string;
  selectedOption?: string;
  selectedDate?: string;
}

/** Every option of a select, its groups' too. */
export function optionsOf(
  source:
    | { options?: SlackOption[]; option_groups?: { options?: SlackOption[] }[] }
    | SlackOption[]
    | undefined,
): SlackOption[] {
  if (!source) return [];
  if (Array.isArray(source)) return source;
  return [...(source.options ?? []), ...(source.option_groups ?? []).flatMap((group) => group.options ?? [])];
}

/**
 * The option a person picks in an external select: one the app suggested for it (or its initial
 * option), as in Slack, where nothing else can be chosen.
 */
function externalOption(element: Element, value: string, suggested: SlackOption[] | undefined): SlackOption {
  const option = [...(suggested ?? []), ...(element.initial_option ? [element.initial_option] : [])].find(
    (candidate: { value: string }) => candidate.value === value,
  );
  if (!option)
    throw new Error(
      `no option ${value} in ${element.action_id}: the app has not suggested it (suggestOptions)`,
    );
  return option;
}

/** The action Slack sends for an element, with what was chosen in it. */
export function actionFor(
  element: Element,
  actionId: string,
  blockId: string,
  ts: string,
  choice?: Choice,
  suggested?: SlackOption[],
) {
  const action: Record<string, unknown> = {
    type: element.type,
    action_id: actionId,
    block_id: blockId,
    action_ts: ts,
  };
  if (element.type === 'button') {
    action.value = choice?.value ?? element.value;
    action.text = element.text;
  } else if (element.type === 'static_select' || element.type === 'overflow') {
    const option = (element.options ?? []).find(
      (candidate: { value: string }) => candidate.value === choice?.selectedOption,
    );
    if (!option) throw new Error(`no option ${choice?.selectedOption} in ${actionId}`);
    action.selected_option = option;
  } else if (element.type === 'external_select') {
    action.selected_option = externalOption(element, choice?.selectedOption ?? '', suggested);
  } else if (element.type === 'datepicker') {
    action.selected_date = choice?.selectedDate ?? element.initial_date ?? null;
  } else if (choice?.value !== undefined) {
    action.value = choice.value;
  }
  return action;
}

/** An input's state in `view.state.values`, as Slack shapes it for each element type. */
export function inputState(
  element: Element,
  given: string | undefined,
  suggested?: SlackOption[],
): Record<string, unknown> {
  switch (element.type) {
    case 'external_select':
      return {
        type: 'external_select',
        selected_option:
          given === undefined || given === ''
            ? (element.initial_option ?? null)
            : externalOption(element, given, suggested),
      };
    // The page sends '' for a select left at its placeholder or an emptied date: nothing chosen.
    case 'datepicker':
      return {
        type: 'datepicker',
        selected_date: given === '' ? null : (given ?? element.initial_date ?? null),
      };
    case 'static_select':
    case 'radio_buttons': {
      if (given === '') return { type: element.type, selected_option: null };
      const value = given ?? element.initial_option?.value;
      const option = (element.options ?? []).find(
        (candidate: { value: string }) => candidate.value === value,
      );
      if (given !== undefined && !option) throw new Error(`no option ${given} in ${element.action_id}`);
      return { type: element.type, selected_option: option ?? null };
    }
    default:
      return { type: element.type, value: given ?? element.initial_value ?? null };
  }
}
