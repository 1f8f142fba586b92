import { setFlagsFromString } from 'node:v8';

const GROWTH_FLAG = 'semi-space-growth-factor';
/** V8's own default for the flag (V8 11 to 13: Node 20 to 24). */
export const V8_DEFAULT_GROWTH_FACTOR = 2;

/**
 * Keeps V8's young generation at its initial size (two 1 MiB semi-spaces) while the process loads its code and
 * builds the app, and returns what gives it V8's usual growth back, to call once the process is started.
 *
 * Why: loading ~700 modules, the catalog and the schemas allocates objects that nearly all survive, which is what
 * makes V8 double the young generation, up to 2 × 16 MiB. V8 does not shrink it again while the process is idle,
 * so a gateway that had answered nothing yet held ~30 MiB of empty young generation. Held at its initial size, start-up
 * costs a few more scavenges (no measurable start-up time) and the young generation still grows as usual under load,
 * once released.
 *
 * `--semi-space-growth-factor` is read by V8 each time it grows the young generation, so setting it at run time
 * works. Nothing is changed when the operator set that flag themselves (`nodeOptions`: the process's execArgv and
 * NODE_OPTIONS).
 */
export function holdYoungGeneration(nodeOptions: readonly string[]): () => void {
  if (setsFlag(nodeOptions, GROWTH_FLAG)) return () => {};
  setFlagsFromString(`--${GROWTH_FLAG}=1`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    setFlagsFromString(`--${GROWTH_FLAG}=${V8_DEFAULT_GROWTH_FACTOR}`);
  };
}

/** Whether the operator set any of these V8 flags (`semi-space-growth-factor`; `_` and `-` alike) in their Node options. */
export function setsFlag(nodeOptions: readonly string[], ...flags: readonly string[]): boolean {
  return nodeOptions.some((option) => {
    const normalised = option.replaceAll('_', '-');
    return flags.some((flag) => normalised.includes(flag));
  });
}

/** This process's Node options: its command line's, then NODE_OPTIONS'. */
export function nodeOptionsOf(process: { readonly execArgv: readonly string[]; readonly env: NodeJS.ProcessEnv }): string[] {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((option) => option !== '')];
}
