import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { RequestLogger, requestLoggerFactory } from './request-logger.js';

function capture(level: string) {
  const lines: Record<string, unknown>[] = [];
  let children = 0;
  const onChild = () => {
    children += 1;
  };
  const logger = pino({ level, base: { service: 'modelport' }, onChild }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines, children: () => children };
}

describe('RequestLogger', () => {
  it('writes lines with the request id and the parent bindings, through one pino child made at the first line', () => {
    const { logger, lines, children } = capture('info');
    const log = requestLoggerFactory(logger, { requestId: 'req_1' }, {});
    assert.ok(log instanceof RequestLogger);
    assert.equal(children(), 0);
    log.debug('below the level');
    assert.equal(children(), 0, 'a line below the level builds nothing');
    log.info({ status: 200 }, 'request');
    log.warn('budget charge failed');
    assert.equal(children(), 1);
    assert.deepEqual(
      lines.map(({ level, msg, requestId, service, status }) => ({ level, msg, requestId, service, status })),
      [
        { level: 30, msg: 'request', requestId: 'req_1', service: 'modelport', status: 200 },
        { level: 40, msg: 'budget charge failed', requestId: 'req_1', service: 'modelport', status: undefined },
      ],
    );
    assert.equal(log.level, 'info');
    assert.equal(log.isLevelEnabled('debug'), false);
  });

  it('follows the level set on it, and makes children of its own', () => {
    const { logger, lines } = capture('warn');
    const log = requestLoggerFactory(logger, { requestId: 'req_2' }, {});
    log.level = 'debug';
    log.debug('now written');
    log.child({ step: 1 }).error('from a child');
    assert.equal(logger.level, 'warn', "the parent's level is left alone");
    assert.deepEqual(
      lines.map(({ msg, requestId, step }) => ({ msg, requestId, step })),
      [
        { msg: 'now written', requestId: 'req_2', step: undefined },
        { msg: 'from a child', requestId: 'req_2', step: 1 },
      ],
    );
  });

  it("gives a route's own level or serializers pino's child at once", () => {
    const { logger, children } = capture('info');
    const log = requestLoggerFactory(logger, { requestId: 'req_3' }, { level: 'debug' });
    assert.equal(log instanceof RequestLogger, false);
    assert.equal(children(), 1);
    assert.equal(log.level, 'debug');
  });
});
