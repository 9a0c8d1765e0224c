/**
 * Tenants and API keys of a data directory in {@code keys.json} (hashes only, owner-only file), re-read while the
 * standalone runs.
 */
package dev.logpipe.server.keys;
