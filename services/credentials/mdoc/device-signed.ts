import { nullRecord } from '../../untrusted/keys.ts';
import { CheckFailed, type CheckTrail } from '../result.ts';
import { dataItemBytes, decodeCbor, isMap, type Tag } from './cbor.ts';

/** What an MSO lets the device sign (ISO 18013-5 §9.1.2.4): whole namespaces, or elements of one. */
export interface KeyAuthorizations {
  nameSpaces: string[];
  dataElements: Record<string, string[]>;
}

const fail = (reason: string): never => {
  throw new CheckFailed('device_authentication', reason);
};

/** ISO 18013-5 §9.1.2.4 `KeyAuthorizations = {? nameSpaces: [+ tstr], ? dataElements: {+ tstr => [+ tstr]}}`. */
export function keyAuthorizationsOf(value: unknown): KeyAuthorizations {
  const nameSpaces =
    isMap(value) && Array.isArray(value.get('nameSpaces')) ? (value.get('nameSpaces') as unknown[]) : [];
  const elements = isMap(value) ? value.get('dataElements') : undefined;
  const dataElements = nullRecord<string[]>();
  if (isMap(elements))
    for (const [ns, ids] of elements)
      if (typeof ns === 'string' && Array.isArray(ids)) dataElements[ns] = ids.filter((id) => typeof id === 'string');
  return { nameSpaces: nameSpaces.filter((ns): ns is string => typeof ns === 'string'), dataElements };
}

/**
 * The device-signed elements of a document (tag-24 DeviceNameSpacesBytes), each one the MSO's
 * keyAuthorizations allow the device to sign (ISO 18013-5 §9.1.2.4); an unauthorized one fails.
 */
export function deviceSignedElements(
  nameSpacesBytes: Tag,
  allowed: KeyAuthorizations | undefined,
  trail: CheckTrail,
): Record<string, Record<string, unknown>> {
  let decoded: unknown;
  try {
    decoded = decodeCbor(dataItemBytes(nameSpacesBytes));
  } catch {
    fail('deviceSigned.nameSpaces is not CBOR');
  }
  trail.ensure(isMap(decoded), 'device_authentication', 'deviceSigned.nameSpaces must be a map');
  const out = nullRecord<Record<string, unknown>>();
  for (const [ns, elements] of decoded) {
    trail.ensure(
      typeof ns === 'string' && isMap(elements),
      'device_authentication',
      'a device namespace maps names to values',
    );
    const values = nullRecord();
    for (const [id, value] of elements) {
      trail.ensure(typeof id === 'string', 'device_authentication', 'a device-signed element is named by a string');
      trail.ensure(
        !!allowed && (allowed.nameSpaces.includes(ns) || (allowed.dataElements[ns] ?? []).includes(id)),
        'device_authentication',
        `the device signed ${ns}/${id}, which the MSO's keyAuthorizations do not allow`,
      );
      values[id] = value;
    }
    out[ns] = values;
  }
  return out;
}
