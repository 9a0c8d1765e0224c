/** Lines into records: single-line, multiline and container-runtime lines, and JSON and logfmt read from bytes. */
package dev.logpipe.forwarder.internal.parse;
