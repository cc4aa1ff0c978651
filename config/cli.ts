/** What every command of the product shares: `--help` (or `-h`) prints its usage on stdout and exits 0. */
export function exitWithUsageOnHelp(usage: string, args: readonly string[] = process.argv.slice(2)): void {
  if (!args.includes('--help') && !args.includes('-h')) return;
  process.stdout.write(`${usage.trimEnd()}\n`);
  process.exit(0);
}
