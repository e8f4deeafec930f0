/** RFC 7644 §3.7.4: the limits of `POST /Bulk`, advertised in `/ServiceProviderConfig` and enforced (413). */
export const BULK_LIMITS = { maxOperations: 100, maxPayloadSize: 1_048_576 } as const;
