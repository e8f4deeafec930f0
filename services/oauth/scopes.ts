/** Scopes a person may grant at the authorization endpoint of either issuer. */
export const USER_GRANTABLE_SCOPES = [
  'openid',
  'profile',
  'email',
  'phone',
  'offline_access',
  'api:read',
  'api:write',
  'mcp:read',
  'mcp:write',
];

/**
 * Every scope a client may register (RFC 7591 §2): the grantable ones, and `ssf` and `scim`, which only
 * client_credentials gives (the client's own streams; the client's own SCIM tenant).
 */
export const OAUTH_SCOPES = [...USER_GRANTABLE_SCOPES, 'ssf', 'scim'];

/** The scopes of the protected MCP endpoint: reading tools, and starting flows (docs/mcp.md). */
export const MCP_READ = 'mcp:read';
export const MCP_WRITE = 'mcp:write';
