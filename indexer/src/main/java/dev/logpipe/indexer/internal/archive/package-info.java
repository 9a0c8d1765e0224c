/** The archive tier's jobs on the indexer's loop: {@link dev.logpipe.indexer.internal.archive.ArchiveHousekeeping}. */
package dev.logpipe.indexer.internal.archive;
