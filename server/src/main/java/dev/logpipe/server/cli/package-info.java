/**
 * The {@code logpipe} command line: every role (broker, collector, indexer, query), the broker tools, {@code
 * standalone} and {@code keys}.
 */
package dev.logpipe.server.cli;
