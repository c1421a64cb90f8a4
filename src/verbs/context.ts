// Moved to src/context/verb-context.ts (a neutral module the store, verbs and transports share).
// This re-export keeps branches written before the move compiling; remove it once merged.
export * from '../context/verb-context.js';
