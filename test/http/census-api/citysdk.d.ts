// citysdk ships no types: the one export its README documents, a function of an options object
// and a node-style callback.
declare module 'citysdk' {
  const census: (args: Record<string, unknown>, callback: (err: unknown, res: unknown) => void) => void;
  export default census;
}
