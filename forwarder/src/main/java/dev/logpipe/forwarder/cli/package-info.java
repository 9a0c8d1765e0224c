/** The {@code log-forwarder} command line: flags, logging setup, exit codes and the shutdown hook. */
package dev.logpipe.forwarder.cli;
