/** The optional disk spool between the tail and the sink: fsynced segments, a delivered cursor, a drainer thread. */
package dev.logpipe.forwarder.internal.spool;
