// The Workflows page: the app's Workflow Builder steps, a form for each from the manifest's inputs,
// and what a run gave back. Everything from the app or the manifest is set as text, never as HTML.
const params = new URLSearchParams(location.search);
const team = params.get('team') ?? '';
const $ = (id) => document.getElementById(id);

/** Slack's type for the person running a workflow: filled from the trigger, never by the author. */
const USER_CONTEXT = 'slack#/types/user_context';

let catalogue = null;
let chosen = null;
let lastRun = null;
/** How many results the page has shown: a test (or a person) can tell a new one from the last. */
let shownRuns = 0;

async function api(path, body) {
  const response = await fetch(path, {
    method: body ? 'POST' : 'GET',
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error ?? `HTTP ${response.status}`);
  return answer;
}

function element(tag, attributes = {}, text = '') {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

/** The field for one input: people and channels are picked, numbers typed, long text in a box. */
function fieldOf(input) {
  const id = `input-${input.name}`;
  const label = element('label', { for: id, class: 'field' });
  const title = element('span', { class: 'field-title' }, input.title);
  if (input.required) title.append(element('span', { class: 'required', title: 'required' }, ' *'));
  label.append(title);
  let control;
  const choices =
    input.type === 'slack#/types/user_id' || input.type === USER_CONTEXT
      ? catalogue.users.map((user) => [user.id, `${user.name} (${user.id})`])
      : input.type === 'slack#/types/channel_id'
        ? catalogue.channels.map((channel) => [channel.id, `#${channel.name}`])
        : null;
  if (choices) {
    control = element('select', { id, name: input.name });
    if (!input.required) control.append(element('option', { value: '' }, '(not set)'));
    for (const [value, text] of choices) control.append(element('option', { value }, text));
  } else if (/template|words/.test(input.name)) {
    control = element('textarea', { id, name: input.name, rows: '3' });
  } else {
    control = element('input', { id, name: input.name, type: input.type === 'integer' ? 'number' : 'text' });
  }
  if (input.required) control.required = true;
  label.append(control);
  if (input.description) label.append(element('span', { class: 'hint' }, input.description));
  return label;
}

function choose(step) {
  chosen = step;
  lastRun = null;
  for (const link of document.querySelectorAll('.step-link'))
    link.classList.toggle('active', link.dataset.step === step.callbackId);
  $('step-title').textContent = step.title;
  $('step-description').textContent = step.description;
  const fields = $('fields');
  fields.replaceChildren(...step.inputs.map(fieldOf));
  $('step-form').hidden = false;
  $('again-button').hidden = true;
  $('result').hidden = true;
}

/** Who starts the workflow: not an input the author sets, but what Slack fills `user_context` with. */
function starterOf(form) {
  const input = chosen.inputs.find((candidate) => candidate.type === USER_CONTEXT);
  return input ? form.elements[input.name].value : '';
}

function valuesOf(form) {
  const inputs = {};
  for (const input of chosen.inputs) {
    if (input.type === USER_CONTEXT) continue;
    const value = form.elements[input.name].value.trim();
    inputs[input.name] = input.type === 'integer' && value !== '' ? Number(value) : value;
  }
  return inputs;
}

function show(run) {
  const result = $('result');
  result.hidden = false;
  result.dataset.state = run.state;
  shownRuns += 1;
  result.dataset.run = String(shownRuns);
  const headings = { completed: 'Completed', failed: 'Failed', running: 'Still running' };
  $('result-heading').textContent = headings[run.state] ?? run.state;
  $('result-sentence').textContent =
    run.state === 'failed'
      ? run.error
      : run.state === 'running'
        ? 'Tenderbot has not ended the step yet.'
        : 'What this step gives the next steps of the workflow:';
  const table = $('outputs');
  const rows = Object.entries(run.outputs ?? {}).map(([name, value]) => {
    const declared = chosen.outputs.find((output) => output.name === name);
    const row = element('tr');
    row.append(element('th', {}, declared?.title ?? name), element('td', {}, String(value)));
    return row;
  });
  table.replaceChildren(...rows);
  $('result-execution').textContent = `Execution ${run.executionId}`;
  $('again-button').hidden = false;
}

async function run(again) {
  const button = again ? $('again-button') : $('run-button');
  button.disabled = true;
  try {
    const answer = await api('/workflows/run', {
      team,
      step: chosen.callbackId,
      inputs: valuesOf($('step-form')),
      user: starterOf($('step-form')),
      ...(again && lastRun ? { again: lastRun.executionId } : {}),
    });
    lastRun = answer;
    show(answer);
  } catch (error) {
    show({
      state: 'failed',
      error: `The workbench could not run the step: ${error.message}`,
      executionId: '-',
    });
  } finally {
    button.disabled = false;
  }
}

async function load() {
  catalogue = await api(`/workflows/steps${team ? `?team=${encodeURIComponent(team)}` : ''}`);
  const nav = $('steps');
  nav.replaceChildren(
    ...catalogue.steps.map((step) => {
      const link = element(
        'button',
        { type: 'button', class: 'step-link', 'data-step': step.callbackId },
        step.title,
      );
      link.addEventListener('click', () => choose(step));
      return link;
    }),
  );
  const wanted = catalogue.steps.find((step) => step.callbackId === params.get('step')) ?? catalogue.steps[0];
  if (wanted) choose(wanted);
}

$('step-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void run(false);
});
$('again-button').addEventListener('click', () => void run(true));
void load();
