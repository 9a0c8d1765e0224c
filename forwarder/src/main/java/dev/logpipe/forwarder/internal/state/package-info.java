/** What the watermark store and the spool share for durable state: atomic file publication. */
package dev.logpipe.forwarder.internal.state;
