import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { parseBenchOptions } from '../../bench/options.js';
import { sampleProcess, sampleProcessTree, sampleRef } from '../../bench/process-stats.js';

const HELD_MIB = 48;

/**
 * A parent that forks two children; each child fills and holds HELD_MIB of memory, then says so. The parent prints
 * "ready" once both have, and everything lives until its stdin closes.
 */
const PARENT = `
const { spawn } = require('node:child_process');
const child = \`
  const held = Buffer.alloc(${HELD_MIB} * 1024 * 1024, 1);
  process.send('filled', () => {});
  process.on('disconnect', () => process.exit(0));
  setInterval(() => held[0]++, 1000);
\`;
let filled = 0;
const children = [0, 1].map(() => spawn(process.execPath, ['-e', child], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }));
for (const one of children) one.on('message', () => { if (++filled === 2) process.stdout.write('ready\\n'); });
process.stdin.on('end', () => { for (const one of children) one.kill(); process.exit(0); });
process.stdin.resume();
`;

async function startParent(): Promise<ChildProcess> {
  const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  parent.stdout!.on('data', (data: Buffer) => (output += data.toString('utf8')));
  while (!output.includes('ready')) await once(parent.stdout!, 'data');
  return parent;
}

describe('bench/process-stats.ts: a process tree (the gateway with MODELPORT_WORKERS)', { skip: process.platform !== 'linux' }, () => {
  it('sums the children of a process into its sample, and a pid alone is the process alone', { timeout: 30_000 }, async () => {
    const parent = await startParent();
    try {
      const pid = parent.pid!;
      const alone = sampleProcess(pid);
      const tree = sampleProcessTree(pid);
      assert.ok(alone !== undefined && tree !== undefined);
      // Each child holds HELD_MIB of touched pages, plus its own Node (tens of MiB): the tree has at least both.
      assert.ok(tree.rssMiB - alone.rssMiB >= 2 * HELD_MIB, `tree ${tree.rssMiB} MiB, the parent alone ${alone.rssMiB} MiB`);
      assert.ok(tree.cpuS > alone.cpuS, 'the children started Node: their CPU time is in the sum');
      assert.ok(tree.peakRssMiB >= tree.rssMiB - 1);
      assert.equal(sampleRef(pid)?.rssMiB !== undefined, true);
      assert.ok(sampleRef({ tree: pid })!.rssMiB - alone.rssMiB >= 2 * HELD_MIB);
    } finally {
      parent.stdin!.end();
      await once(parent, 'exit');
    }
    assert.equal(sampleProcessTree(parent.pid!), undefined, 'a process that is gone has no sample');
  });
});

describe('bench/options.ts: --workers', () => {
  it('defaults to one process and takes 1 to 16 from the flag or BENCH_WORKERS', () => {
    const options = (argv: string[], env: Record<string, string> = {}) => {
      const parsed = parseBenchOptions(argv, env);
      assert.notEqual(parsed, 'help');
      return parsed as Exclude<typeof parsed, 'help'>;
    };
    assert.equal(options([]).workers, 1);
    assert.equal(options(['--workers', '2']).workers, 2);
    assert.equal(options([], { BENCH_WORKERS: '3' }).workers, 3);
    assert.equal(options(['--workers', '2'], { BENCH_WORKERS: '3' }).workers, 2, 'the flag wins');
    assert.equal(options(['--gateway-env', 'MODELPORT_WORKERS=2']).workers, 2, 'the gateway\'s own variable is the same choice');
    assert.equal(options(['--gateway-env', 'MODELPORT_WORKERS=0']).workers, 1);
    assert.throws(() => options(['--workers', '0']), /BENCH_WORKERS must be a number from 1 to 16/);
    assert.throws(() => options(['--workers', 'two']), /BENCH_WORKERS/);
  });
});
