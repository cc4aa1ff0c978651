/**
 * Keeps one core busy until stopped: what a test starts (by pid, stopped whatever happens) to run something on a
 * loaded machine.
 */
let spins = 0;
for (;;) spins = (spins + 1) % 1_000_003;
