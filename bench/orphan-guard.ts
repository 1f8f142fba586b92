/**
 * Kills the processes named in argv once its stdin closes: the bench holds that
 * pipe, so if the bench dies without cleaning up (SIGKILL, a crash), the gateway
 * it started does not linger. Started by services.ts beside the gateway.
 */
const pids = process.argv.slice(2).map(Number).filter((pid) => Number.isInteger(pid) && pid > 0);

function signal(name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // Already gone.
    }
  }
}

const onParentGone = () => {
  signal('SIGTERM');
  setTimeout(() => {
    signal('SIGKILL');
    process.exit(0);
  }, 3_000);
};
process.stdin.on('end', onParentGone);
process.stdin.on('error', onParentGone);
process.stdin.resume();
// The bench stops this guard with SIGTERM once it has stopped the gateway itself.
process.on('SIGTERM', () => process.exit(0));
