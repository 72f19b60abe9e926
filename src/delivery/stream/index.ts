/**
 * Stream: the answer of one reply streamed natively where the Surface offers it (Slack
 * chat.startStream). StreamLane (stream-lane.ts) coalesces appends, paces them, cuts parts at
 * clean boundaries and hands back what it could not stream; its state union and the text
 * arithmetic of where a part may end are pure functions beside it (stream-lane-state.ts).
 */
export { StreamLane } from './stream-lane.js';
