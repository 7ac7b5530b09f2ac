import { configJsonSchema } from '../../shared/config/config-json-schema.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every property schema of a JSON Schema, with where it is, through nested objects, arrays, unions and $defs. */
function propertiesOf(node: unknown, path: string): { path: string; schema: Node }[] {
  if (Array.isArray(node)) return node.flatMap((child, index) => propertiesOf(child, `${path}[${index}]`));
  if (!isNode(node)) return [];
  const own = isNode(node.properties)
    ? Object.entries(node.properties).flatMap(([name, schema]) =>
        isNode(schema) ? [{ path: `${path}.${name}`, schema }, ...propertiesOf(schema, `${path}.${name}`)] : [],
      )
    : [];
  const nested = ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'propertyNames'].flatMap(
    (key) => propertiesOf(node[key], `${path}/${key}`),
  );
  const defs = isNode(node.$defs)
    ? Object.entries(node.$defs).flatMap(([name, def]) => propertiesOf(def, `#${name}`))
    : [];
  return [...own, ...nested, ...defs];
}

/** The rule ids an editor offers at a schema that expects a rule id. */
function offeredRuleIds(schema: unknown): unknown {
  const choices = isNode(schema) && Array.isArray(schema.anyOf) ? schema.anyOf : [];
  return choices.find((choice): choice is Node => isNode(choice) && Array.isArray(choice.enum))?.enum;
}

describe("the configuration's JSON Schema", () => {
  const schema = configJsonSchema() as Node;
  const properties = propertiesOf(schema, '$');
  const at = (path: string) => properties.find((property) => property.path === path)?.schema;
  const ids = DEFAULT_RULES.map((rule) => rule.id);

  it('describes every property, for editors to show', () => {
    expect(properties.length).toBeGreaterThan(200);
    expect(properties.filter(({ schema }) => typeof schema.description !== 'string').map(({ path }) => path)).toEqual(
      [],
    );
  });

  it('finds a property without a description', () => {
    const bare = { properties: { a: { description: 'x' }, b: { type: 'object', properties: { c: {} } } } };

    expect(
      propertiesOf(bare, '$')
        .filter(({ schema }) => !schema.description)
        .map(({ path }) => path),
    ).toEqual(['$.b', '$.b.c']);
  });

  it("keeps the bounds of a duration in its field's description", () => {
    expect(at('$.poll.every')?.description).toMatch(/Whole minutes from 1m to 1h\.$/);
  });

  it('offers the default rule ids wherever a rule id is expected', () => {
    const overrides = at('$.rules.overrides');

    expect(offeredRuleIds(overrides?.propertyNames)).toEqual(ids);
    expect(Object.keys(overrides?.properties as Node)).toEqual(ids);
    expect(offeredRuleIds((at('$.clusters/items.overrides')?.propertyNames as Node) ?? {})).toEqual(ids);
    expect(offeredRuleIds(at('$.rules.custom/items.explains')?.items)).toEqual(ids);
    expect(offeredRuleIds(at('$.rules.custom/items.maintenance/anyOf[1].notifyWhenFiring')?.items)).toEqual(ids);
  });

  it("names each default rule's override with the rule's title", () => {
    const first = DEFAULT_RULES[0];
    const overrides = at('$.rules.overrides')?.properties as Record<string, Node>;

    expect(overrides[first?.id ?? '']?.description).toContain(first?.title);
  });
});
