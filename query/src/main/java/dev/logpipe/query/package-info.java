/**
 * The query role: {@code QueryService}, the search API as a Jetty handler, and {@code QueryProcess}, the separate query
 * process on its own port.
 */
package dev.logpipe.query;
