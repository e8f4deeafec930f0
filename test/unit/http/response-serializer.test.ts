import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { buildResponseSerializer, isOpenObjectSchema } from '../../../adapters/http/response-serializer.ts';

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });
const fastJsonStringify = SerializerSelector()();
const ours = buildResponseSerializer();

/** JSON objects as handlers build them: plain members, nested values, no undefined holes. */
const jsonObject = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }) as fc.Arbitrary<Record<string, unknown>>;

describe('response serializer: JSON.stringify for open object schemas, fastify default otherwise', () => {
  it('open object schemas (with or without documented members) give the value fast-json-stringify gives', () => {
    const schemas = [
      { type: 'object', additionalProperties: true },
      {
        type: 'object',
        additionalProperties: true,
        properties: { status: { type: 'string' }, request_id: { type: 'string' } },
      },
    ];
    for (const schema of schemas) {
      const theirs = fastJsonStringify(route(schema));
      const serialize = ours(route(schema));
      expect(serialize).toBe(JSON.stringify);
      fc.assert(
        fc.property(jsonObject, fc.string(), fc.string(), (body, status, id) => {
          const built = { request_id: id, status, ...body };
          expect(JSON.parse(serialize(built))).toEqual(JSON.parse(theirs(built)));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('closed, required, referenced and non-object schemas keep fast-json-stringify (which filters and enforces)', () => {
    const closed = { type: 'object', properties: { a: { type: 'string' } } };
    expect(isOpenObjectSchema(closed)).toBe(false);
    expect(JSON.parse(ours(route(closed))({ a: 'kept', secret: 'dropped' }))).toEqual({ a: 'kept' });
    const required = {
      type: 'object',
      additionalProperties: true,
      required: ['error'],
      properties: { error: { type: 'string' } },
    };
    expect(isOpenObjectSchema(required)).toBe(false);
    expect(() => ours(route(required))({ error_description: 'no error member' })).toThrow();
    for (const schema of [
      { $ref: 'OAuthError#' },
      { type: 'array' },
      { type: 'null' },
      { type: 'object', additionalProperties: false },
      null,
      'object',
    ]) {
      expect(isOpenObjectSchema(schema)).toBe(false);
    }
  });
});
