/** The log analyzer of the {@code message} field: compound tokens (addresses, paths, ids) and their parts. */
package dev.logpipe.index.analysis;
