/** {@code logpipe query}: the command that loads the configuration and runs a query process. */
package dev.logpipe.query.cli;
