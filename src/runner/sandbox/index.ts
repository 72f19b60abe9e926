/**
 * The agent box, entered here: the start-up probe and what TURNBRIDGE_SANDBOX comes to (probe.ts),
 * the bubblewrap flags every box starts with (isolation.ts), the seccomp stage that runs the agent
 * without unix sockets or new namespaces (seccomp.ts), the argv of one boxed turn in layers
 * (box-args.ts), the turn's only way out: a filtering HTTP proxy on a unix socket for the
 * profile's `sandbox.allow_hosts` (egress.ts, @anthropic-ai/sandbox-runtime's proxy loaded on
 * demand) and the relay inside the box in front of it (relay.ts), the profile's `sandbox.read`
 * files, boxed or not (declared-files.ts), and where a turn runs and how a boxed one is ended
 * (turn-box.ts); a command of the bridge's own placed where its agents run (box-command.ts).
 */
export { sandboxArgs, type BoxExtras } from './box-args.js';
export { cachedProbe, decideSandbox, probeBox, sandboxFix, sandboxInForce, sandboxProblem, stageFix, stageLine, type BoxSetup, type ProbeOptions, type SandboxDecision } from './probe.js';
export { loadEgressProxy, startEgress, type Egress } from './egress.js';
export { placeTurn, watchBoxInit, type TurnPlace } from './turn-box.js';
export { placeCommand, type CommandPlace, type PlacedCommand } from './box-command.js';
