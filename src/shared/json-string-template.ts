/** Stands in for the string while the value is written out; no real text holds it. */
const hole = '\u0000switchyard-hole\u0000';
const encodedHole = JSON.stringify(hole);

/**
 * What `JSON.stringify(build(text))` returns, for values that differ in one string only: on the
 * first call the value is written once with a marker for the string, and each call puts the
 * text's own JSON between the parts around it. A translated stream writes most of its events so
 * (text deltas, about a tenth of a stringify each). `build` must place `text` once and nowhere
 * else; when the marker is not found exactly once, every call stringifies.
 */
export function jsonStringTemplate(build: (text: string) => unknown): (text: string) => string {
  let write: ((text: string) => string) | undefined;
  return (text) => {
    write ??= learn(build);
    return write(text);
  };
}

function learn(build: (text: string) => unknown): (text: string) => string {
  const written = JSON.stringify(build(hole));
  const at = written.indexOf(encodedHole);
  if (at === -1 || written.indexOf(encodedHole, at + 1) !== -1) {
    return (text) => JSON.stringify(build(text));
  }
  const before = written.slice(0, at);
  const after = written.slice(at + encodedHole.length);
  return (text) => before + JSON.stringify(text) + after;
}
