// definedFields: the one way to leave a record's undefined fields out, so "absent" has one shape — in a
// JSON body, a view, or a status compared deep-equal with the one stored — without writing
// `...(x === undefined ? {} : { x })` once per optional field.
/** `o` without the fields whose value is undefined (key order kept). */
export function definedFields<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
