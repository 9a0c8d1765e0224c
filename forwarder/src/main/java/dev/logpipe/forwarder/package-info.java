/** The log forwarder agent: {@code Forwarder} opens its state, sink and tail thread and stops them gracefully. */
package dev.logpipe.forwarder;
