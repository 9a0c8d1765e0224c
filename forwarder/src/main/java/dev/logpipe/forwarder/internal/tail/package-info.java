/** The tail thread and its helpers: finding, reading and following files, and handing batches to the publish lane. */
package dev.logpipe.forwarder.internal.tail;
