/** The archive format (docs/archive-format.md): the writer and reader of one immutable archive of a tenant-day, its time-sorted zstd blocks, per-block ranges and token filters, checksums and footer. */
package dev.logpipe.archive.format;
