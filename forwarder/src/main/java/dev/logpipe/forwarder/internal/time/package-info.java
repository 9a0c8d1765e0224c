/** Event time: the fixed layouts of {@code transform.event_time}, parsed from bytes, and RFC 3339 written out. */
package dev.logpipe.forwarder.internal.time;
