/** What happens to a record between parse and publish: include/exclude filters and field transforms. */
package dev.logpipe.forwarder.internal.process;
