/** The write side of the index seam: {@code ShardStore} and the records and dead letters written through it. */
package dev.logpipe.index.store.write;
