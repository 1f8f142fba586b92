/**
 * The largest allocation sites of a sampling heap profile (bench/old-space-allocations.mjs writes one), with the
 * six innermost frames of each: `npx tsx bench/allocation-profile-summary.ts <profile.json> [rows]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

const [path, rowsArgument] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: allocation-profile-summary.ts <profile.json> [rows]');
const profile = JSON.parse(readFileSync(path, 'utf8')) as { head: ProfileNode };
const sites: { bytes: number; stack: string[] }[] = [];
const walk = (node: ProfileNode, stack: readonly string[]): void => {
  const { functionName, url, lineNumber } = node.callFrame;
  const frames = [...stack, `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`];
  if (node.selfSize > 0) sites.push({ bytes: node.selfSize, stack: frames.slice(-6).reverse() });
  for (const child of node.children) walk(child, frames);
};
walk(profile.head, []);
sites.sort((a, b) => b.bytes - a.bytes);
const total = sites.reduce((sum, site) => sum + site.bytes, 0);
process.stdout.write(`${(total / 1_048_576).toFixed(1)} MiB sampled\n`);
for (const site of sites.slice(0, Number(rowsArgument ?? '25'))) {
  process.stdout.write(`${String(Math.round(site.bytes / 1024)).padStart(7)} KiB  ${site.stack.join(' < ')}\n`);
}
