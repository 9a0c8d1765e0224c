/** {@code logpipe collector}: the command that loads the configuration and runs a collector. */
package dev.logpipe.collector.cli;
