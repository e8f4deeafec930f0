/**
 * RFC 7643 §7: how an attribute is described, and small builders for the schemas of this service
 * provider. Attribute names are case-insensitive (RFC 7643 §2.1); lookups here lower-case them.
 */
export type AttributeType =
  'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'complex' | 'binary';
type Mutability = 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
type Returned = 'always' | 'never' | 'default' | 'request';

export interface AttributeDef {
  name: string;
  type: AttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: Mutability;
  returned: Returned;
  uniqueness: 'none' | 'server' | 'global';
  subAttributes?: AttributeDef[];
  canonicalValues?: string[];
  referenceTypes?: string[];
}

export interface SchemaDef {
  id: string;
  name: string;
  description: string;
  attributes: AttributeDef[];
}

type Options = Partial<Omit<AttributeDef, 'name' | 'type' | 'description' | 'subAttributes'>>;

const DEFAULTS = {
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
} as const;

export const attr = (name: string, type: AttributeType, description: string, options: Options = {}): AttributeDef => ({
  name,
  type,
  description,
  ...DEFAULTS,
  ...options,
});

export const complex = (name: string, description: string, subAttributes: AttributeDef[], options: Options = {}) => ({
  ...attr(name, 'complex', description, options),
  subAttributes,
});

/** RFC 7643 §2.4: the sub-attributes every multi-valued attribute may have, with its own `value`. */
export function multiValued(
  name: string,
  description: string,
  value: AttributeDef,
  options: Options & { types?: string[]; extra?: AttributeDef[] } = {},
): AttributeDef {
  const { types, extra = [], ...rest } = options;
  return complex(
    name,
    description,
    [
      value,
      attr('display', 'string', 'A human-readable name, primarily used for display purposes.', {
        mutability: rest.mutability ?? 'readWrite',
      }),
      attr('type', 'string', 'A label indicating the function of the value.', {
        canonicalValues: types,
        mutability: rest.mutability ?? 'readWrite',
      }),
      attr('primary', 'boolean', 'The primary or preferred value; at most one value may be primary.', {
        mutability: rest.mutability ?? 'readWrite',
      }),
      ...extra,
    ],
    { multiValued: true, ...rest },
  );
}

/** The attribute of `defs` named `name`, whatever its case (RFC 7643 §2.1). */
export function findAttribute(defs: readonly AttributeDef[] | undefined, name: string): AttributeDef | undefined {
  const lower = name.toLowerCase();
  return defs?.find((d) => d.name.toLowerCase() === lower);
}
