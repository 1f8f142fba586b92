import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { movedToEnd, readersOfLastStep, withNewStep, type OrderedStep } from '../../web/src/pages/agents-step-order.js';

let key = 0;
const step = (name: string, prompt = '{{input}}', needs: string[] = []): OrderedStep => ({ key: (key += 1), name, system: '', prompt, needs });
const names = (steps: readonly OrderedStep[]) => steps.map((entry) => entry.name);

describe('agent form: step order', () => {
  it('"Add step" puts the new step before the answer step', () => {
    const added = withNewStep([step('answer')], step('outline'));
    assert.deepEqual(names(added), ['outline', 'answer']);
    assert.deepEqual(names(withNewStep(added, step('facts'))), ['outline', 'facts', 'answer']);
    assert.deepEqual(names(withNewStep([], step('only'))), ['only']);
  });

  it('the natural order has no step reading the answer step', () => {
    const steps = withNewStep([step('answer', 'Write from {{steps.outline.output}}')], step('outline', 'Outline {{input}}'));
    assert.deepEqual(readersOfLastStep(steps), []);
  });

  it('names the steps that read or need the last step; moving one to the end clears it', () => {
    assert.deepEqual(readersOfLastStep([step('facts'), step('summary', 'Sum up {{ steps.facts.json.list }}')]), []);
    const wrong = [step('summary', 'Sum up {{ steps.facts.output }}'), step('check', 'x', ['facts']), step('other', '{{steps.factsheet.output}}'), step('facts')];
    assert.deepEqual(names(readersOfLastStep(wrong)), ['summary', 'check']);
    const summary = wrong[0] ?? assert.fail('no step');
    const fixed = movedToEnd(wrong, summary.key);
    assert.deepEqual(names(fixed), ['check', 'other', 'facts', 'summary']);
    assert.deepEqual(readersOfLastStep(fixed), []);
    const system = [{ ...step('a'), system: 'Context: {{steps.b.output}}' }, step('b')];
    assert.deepEqual(names(readersOfLastStep(system)), ['a']);
  });
});
