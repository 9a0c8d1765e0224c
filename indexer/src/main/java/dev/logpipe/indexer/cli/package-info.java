/** {@code logpipe indexer}: the command that loads the configuration and runs an indexer. */
package dev.logpipe.indexer.cli;
