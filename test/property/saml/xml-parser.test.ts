import fc from 'fast-check';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflateBounded } from '../../../services/saml/redirect-binding.ts';
import { MAX_XML_DEPTH, parseXml, XmlRefused } from '../../../services/saml/xml.ts';

// Issue 49: the one XML parser of SAML on hostile inputs: it parses or refuses with a named check,
// never throws anything else, never defines an entity, and stays bounded.
const fragment = fc.oneof(
  fc.constantFrom(
    '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
    '<!ENTITY a "aaaa">',
    '&e;',
    '<?xml version="1.0"?>',
    '<?php x ?>',
    '<![CDATA[x]]>',
    '<!-- c -->',
    '<a>',
    '</a>',
    '<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_1">',
    '</samlp:Response>',
    '<x:y xmlns:x="urn:x" x:a="1"/>',
    '"',
    '<',
  ),
  fc.string({ maxLength: 20 }),
);

describe('SAML XML parsing on hostile input', () => {
  it('parses or refuses with a named check, and never admits a DTD', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), (parts) => {
        const xml = parts.join('');
        try {
          parseXml(xml);
          expect(xml).not.toMatch(/<!DOCTYPE|<!ENTITY/i);
        } catch (error) {
          expect(error).toBeInstanceOf(XmlRefused);
          expect(['xml_size', 'xml_dtd', 'xml_depth', 'xml_syntax']).toContain((error as XmlRefused).check);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses nesting past the bound, whatever the depth', () => {
    fc.assert(
      fc.property(fc.integer({ min: MAX_XML_DEPTH + 1, max: 5000 }), (depth) => {
        const xml = '<a>'.repeat(depth) + '</a>'.repeat(depth);
        expect(() => parseXml(xml)).toThrow(XmlRefused);
      }),
      { numRuns: 50 },
    );
  });

  it('inflates within the bound and refuses any DEFLATE payload past it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000 }), (size) => {
        const compressed = deflateRawSync(Buffer.alloc(size, 0x61));
        if (size <= 256 * 1024) expect(inflateBounded(compressed).length).toBe(size);
        else expect(() => inflateBounded(compressed)).toThrow(XmlRefused);
      }),
      { numRuns: 60 },
    );
  });
});
