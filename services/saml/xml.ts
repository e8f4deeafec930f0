import { DOMParser, XMLSerializer } from '@xmldom/xmldom';

/** The largest SAML message read (a signed, encrypted response with certificates is a few KiB). */
export const MAX_XML_BYTES = 256 * 1024;
/** The deepest element nesting read; SAML messages nest about ten deep. */
export const MAX_XML_DEPTH = 48;

/** A message refused before or while parsing, with the named check that refused it. */
export class XmlRefused extends Error {
  constructor(
    readonly check: 'xml_size' | 'xml_dtd' | 'xml_depth' | 'xml_syntax',
    message: string,
  ) {
    super(message);
    this.name = 'XmlRefused';
  }
}

const ELEMENT_NODE = 1;
const DOCUMENT_TYPE_NODE = 10;
const PROCESSING_INSTRUCTION_NODE = 7;
const COMMENT_NODE = 8;

/**
 * Parses untrusted XML safely: bounded size, no document type declaration at all (so no entity, internal
 * or external, is ever defined or resolved: XXE and entity expansion are refused, not neutralised),
 * bounded depth, and any parser warning or error is a refusal.
 */
export function parseXml(xml: string): Document {
  if (Buffer.byteLength(xml, 'utf8') > MAX_XML_BYTES)
    throw new XmlRefused('xml_size', `The XML is larger than ${MAX_XML_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml))
    throw new XmlRefused('xml_dtd', 'The XML has a document type declaration (DTD); DTDs and entities are refused');
  const problems: string[] = [];
  const record = (message: string) => problems.push(message.split('\n')[0]);
  let doc: Document | undefined;
  try {
    doc = new DOMParser({
      locator: {},
      errorHandler: { warning: record, error: record, fatalError: record },
    }).parseFromString(xml, 'text/xml');
  } catch (error) {
    // The parser throws outright on some malformed trees (a CDATA section outside the root element).
    record(error instanceof Error ? error.message : String(error));
  }
  if (problems.length || !doc?.documentElement)
    throw new XmlRefused('xml_syntax', `The XML is not well-formed: ${problems[0] ?? 'no root element'}`);
  checkTree(doc);
  return doc;
}

/** No DTD node, no processing instruction, and nesting within MAX_XML_DEPTH (walked without recursion). */
function checkTree(doc: Document): void {
  const stack: Array<[Node, number]> = [[doc, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node.nodeType === DOCUMENT_TYPE_NODE) throw new XmlRefused('xml_dtd', 'The XML has a document type node');
    // The XML declaration (`<?xml version="1.0"?>`) is the only processing instruction read.
    if (
      node.nodeType === PROCESSING_INSTRUCTION_NODE &&
      !(depth === 1 && (node as ProcessingInstruction).target === 'xml')
    )
      throw new XmlRefused('xml_syntax', 'The XML has a processing instruction');
    if (depth > MAX_XML_DEPTH) throw new XmlRefused('xml_depth', `The XML nests deeper than ${MAX_XML_DEPTH}`);
    for (let child = node.firstChild; child; child = child.nextSibling) stack.push([child, depth + 1]);
  }
}

/** Whether the document holds an XML comment anywhere (walked without recursion). */
export function hasComment(doc: Document): boolean {
  const stack: Node[] = [doc];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === COMMENT_NODE) return true;
    for (let child = node.firstChild; child; child = child.nextSibling) stack.push(child);
  }
  return false;
}

export const serializeXml = (node: Node): string => new XMLSerializer().serializeToString(node);

/** The element children of `parent` in namespace `ns` named `local`. */
export function childElements(parent: Node, ns: string, local: string): Element[] {
  const found: Element[] = [];
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE) continue;
    const element = child as Element;
    if (element.namespaceURI === ns && element.localName === local) found.push(element);
  }
  return found;
}

/** The one child `ns:local` of `parent`, or undefined when there is none or more than one. */
export function onlyChild(parent: Node, ns: string, local: string): Element | undefined {
  const found = childElements(parent, ns, local);
  return found.length === 1 ? found[0] : undefined;
}

/** Every element of the document in `ns` named `local`, anywhere. */
export const elementsNamed = (doc: Document | Element, ns: string, local: string): Element[] =>
  Array.from(doc.getElementsByTagNameNS(ns, local));

/**
 * The text of an element as a reader of the XML data model sees it: every text node concatenated,
 * comments skipped. (A reader that stops at a comment is what a NameID comment injection exploits.)
 */
export function textOf(element: Element | undefined): string | undefined {
  if (!element) return undefined;
  let text = '';
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3 || child.nodeType === 4) text += child.nodeValue ?? '';
    else if (child.nodeType === ELEMENT_NODE) text += textOf(child as Element) ?? '';
  }
  return text.trim();
}

/** An attribute's value, or undefined when absent. */
export const attr = (element: Element | undefined, name: string): string | undefined =>
  element?.hasAttribute(name) ? element.getAttribute(name)! : undefined;

/** Escapes text for an XML attribute or element. */
export const escapeXml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** Every element carrying an `ID` attribute equal to `id` (SAML's ID attribute, SAML core §1.3.4). */
export function elementsWithId(doc: Document, id: string): Element[] {
  const found: Element[] = [];
  const all = doc.getElementsByTagName('*');
  for (let i = 0; i < all.length; i++) if (all[i].getAttribute('ID') === id) found.push(all[i]);
  return found;
}
