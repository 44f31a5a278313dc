/** Any 8-4-4-4-12 hex UUID; the version is not checked, since ids may come from other systems. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
