import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTemplate, referencedSteps, renderTemplate, TemplateError } from './agent-template.js';

const values = {
  input: 'tides',
  messages: 'user: tides',
  steps: new Map<string, { output: string; json?: unknown }>([
    ['a', { output: 'A out' }],
    ['j', { output: '{}', json: { title: 'T', nested: { n: 2 }, list: [1, 2] } }],
  ]),
};

describe('agent templates', () => {
  it('renders every kind of variable, spaces inside braces allowed', () => {
    const pieces = parseTemplate('I={{input}} M={{ messages }} A={{steps.a.output}} T={{steps.j.json.title}} N={{steps.j.json.nested.n}} L={{steps.j.json.list}}');
    assert.equal(renderTemplate(pieces, values), 'I=tides M=user: tides A=A out T=T N=2 L=[1,2]');
    assert.deepEqual(referencedSteps(pieces).sort(), ['a', 'j']);
  });

  it('leaves single braces and text alone', () => {
    assert.equal(renderTemplate(parseTemplate('{"k": {input}} and {{input}}'), values), '{"k": {input}} and tides');
  });

  it('refuses unknown variables when parsed', () => {
    for (const template of ['{{inputs}}', '{{steps.a}}', '{{steps.a.json}}', '{{steps.A.output}}', '{{}}']) {
      assert.throws(() => parseTemplate(template), TemplateError, template);
    }
  });

  it('fails clearly when a JSON field is missing at run time', () => {
    assert.throws(() => renderTemplate(parseTemplate('{{steps.j.json.missing}}'), values), /without the field "missing"/);
  });
});
