// HealthRuleSet / GlobalHealthRuleSet: user-written CEL rules that decide whether an object is healthy.
import { type Static, Type } from 'typebox';
import { LabelSelector } from './common.ts';
import { ListMap, ListSet } from './k8s.ts';

export const HealthRuleSchema = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 63,
    pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
    description: 'Unique within the rule set; named in health messages.',
  }),
  match: Type.Object(
    {
      group: Type.Optional(
        Type.String({
          maxLength: 253,
          description: 'API group of the objects; absent or "" is the core group, "*" any group.',
        }),
      ),
      kinds: ListSet(Type.String({ minLength: 1, maxLength: 63 }), {
        minItems: 1,
        maxItems: 64,
        description: 'Kinds of the objects; "*" matches any kind.',
      }),
      selector: Type.Optional(LabelSelector({ description: 'Only objects with these labels; absent: all.' })),
    },
    { description: 'Which objects the rule applies to.' },
  ),
  fallback: Type.Optional(
    Type.Boolean({
      description:
        'A fallback rule judges an object only when no other (non-fallback) rule matches it, e.g. a generic rule for kinds without their own rule.',
    }),
  ),
  healthy: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: 'CEL expression over `object`, of type bool: true passes, false fails.',
  }),
  message: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'CEL expression over `object`, of type string: the message when the rule fails.',
    }),
  ),
});
export type HealthRule = Static<typeof HealthRuleSchema>;

export const HealthRuleSetSpecSchema = Type.Object({
  rules: ListMap(HealthRuleSchema, ['name'], { minItems: 1, maxItems: 256 }),
});
export type HealthRuleSetSpec = Static<typeof HealthRuleSetSpecSchema>;
