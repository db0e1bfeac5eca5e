// assertNever, the one definition: the default branch of every exhaustive switch over a tagged union, so
// a member added to the union is a type error at each switch that does not handle it, and a value that
// got past the types anyway (bad data read from outside) fails loudly instead of falling through.
export function assertNever(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
