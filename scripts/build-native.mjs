// Builds the optional native addon (native/glibc-malloc: glibc's malloc_trim for the idle collection, and its arena
// limit) with node-gyp, npm's own copy (npm sets npm_config_node_gyp for the scripts it runs) against this Node's
// headers. A failure is a warning, never a failed install: without the addon the gateway runs the same, its memory is
// just not trimmed when idle and glibc keeps its own arena limit.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const addon = join(root, 'native', 'glibc-malloc');
const skip = (why) => {
  process.stderr.write(`native/glibc-malloc not built (${why}): the idle collection will not trim glibc's free memory nor limit its arenas\n`);
  process.exit(0);
};

if (process.platform !== 'linux') skip(`${process.platform} has no glibc malloc_trim`);
const nodeGyp = process.env.npm_config_node_gyp;
if (nodeGyp === undefined || !existsSync(nodeGyp)) skip('node-gyp not found: run through npm');
// Debian's nodejs has its headers in /usr/include/node: no download needed.
const installPrefix = resolve(dirname(process.execPath), '..');
const nodedir = process.env.npm_config_nodedir ?? (existsSync(join(installPrefix, 'include', 'node', 'node_api.h')) ? installPrefix : undefined);
const args = [nodeGyp, 'rebuild', '--directory', addon, '--loglevel', 'warn', ...(nodedir === undefined ? [] : [`--nodedir=${nodedir}`])];
const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
if (result.status !== 0) skip(`node-gyp exited with ${result.status ?? result.signal}`);
