/**
 * The collector role: {@code Collector} wires one running collector (topics ensured, producer open, HTTP and syslog
 * serving).
 */
package dev.logpipe.collector;
