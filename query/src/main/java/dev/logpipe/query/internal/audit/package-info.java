/** The query audit log: one JSON line per request, answered or refused. */
package dev.logpipe.query.internal.audit;
