/**
 * The standalone's one HTTP port: web UI files, query API, indexer status and legal holds, admin API, health and
 * metrics.
 */
package dev.logpipe.server.http;
